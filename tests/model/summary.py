"""Figures of a demo run played by a real small model (tests/model/run.sh).

    python3 summary.py REPORT_JSON SESSIONS_CSV USER_LOG JUDGE_LOG

Prints: persona x goal cells explored (a session that ended other than
`expired`) of those in the seed set, sessions with at least two
virtual-user turns, sessions that ended with `simulator_error`, judge
reviews stored and failed, the mean seconds and tokens per call of each
role, and the structured-output form each role used (from the campaign's
record and from what was sent).
"""

import csv
import json
import sys
from collections import Counter

report = json.load(open(sys.argv[1], encoding="utf-8"))
sessions = list(csv.DictReader(open(sys.argv[2], encoding="utf-8")))
seeds = report["campaign"]["seed_set"]
cells = len(seeds["personas"]) * len(seeds["goals"])
explored = {(s["persona_id"], s["goal_id"]) for s in sessions if s["end_reason"] != "expired" and s["status"] != "expired"}
ends = Counter(s["end_reason"] or s["status"] for s in sessions)
judge = Counter(s["judge_status"] for s in sessions)


def calls(path):
    try:
        lines = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    except FileNotFoundError:
        lines = []
    def mean(key):
        values = [l[key] for l in lines if isinstance(l.get(key), (int, float))]
        return sum(values) / len(values) if values else 0.0

    return len(lines), mean("seconds"), mean("prompt_tokens"), mean("completion_tokens"), Counter(l["format"] for l in lines)


modes = (report.get("models") or {}).get("output_modes") or {}
ended = sum(1 for s in sessions if s["status"] != "running")
print(f"cells explored:                {len(explored)} of {cells}")
print(f"sessions:                      {len(sessions)} ({dict(ends)})")
print(f"sessions with >= 2 user turns: {sum(1 for s in sessions if int(s['user_turns'] or 0) >= 2)}")
sim = ends.get("simulator_error", 0)
finished = sum(1 for s in sessions if s["status"] not in ("running", "expired"))
print(f"ended with simulator_error:    {sim} of the {finished} sessions that ended before the window closed ({100 * (finished - sim) / finished if finished else 0:.0f}% without); {ended - finished} expired unfinished")
stored, failed = judge.get("done", 0), judge.get("failed", 0)
print(f"judge reviews stored / failed: {stored} / {failed} ({100 * stored / (stored + failed) if stored + failed else 0:.0f}% stored)")
for role, log in (("virtual user", sys.argv[3]), ("judge", sys.argv[4])):
    n, seconds, read, written, forms = calls(log)
    print(f"{role + ':':<14} {n} calls, mean {seconds:.2f} s per call ({read:.0f} tokens read, {written:.0f} written), forms sent {dict(forms)}")
print(f"output modes recorded:         {modes}")
