"""What a campaign played entirely by a real small model did, and whether
its faults were classified (tests/model/run.sh, step 3).

    python3 campaign.py REPORT_JSON SESSIONS_CSV TARGET_LOG USER_LOG JUDGE_LOG

Checks, exiting 1 when one fails:
- the loop completed: every planned run has a verdict or an error, and no
  session is left running;
- what the virtual user got wrong is counted apart: a session that ended
  with simulator_error, or that the virtual-user check faulted, carries
  none of the target's issues;
- what the judge got wrong is a judge failure: reviews stored plus failed
  plus pending account for every judged session, and failures are not
  scores;
- nothing left this machine (the run was made with --offline).
Then prints the figures.
"""

import csv
import json
import sys
from collections import Counter

report = json.load(open(sys.argv[1], encoding="utf-8"))
sessions = list(csv.DictReader(open(sys.argv[2], encoding="utf-8")))
fixed = report["fixed"]
e = report.get("exploration") or {}
problems = []

if fixed["runs_finished"] + fixed.get("runs_skipped", 0) != fixed["runs_planned"]:
    problems.append(f"runs finished {fixed['runs_finished']} of {fixed['runs_planned']} planned")
running = [s["session_id"] for s in sessions if s["status"] == "running"]
if running:
    problems.append(f"sessions left running: {running}")

faulty = {s["session_id"] for s in sessions if s["end_reason"] == "simulator_error"}
faulted_by_check = e.get("simulator_fault_kinds") or {}
with_issue = {sid for i in e.get("issues", []) for sid in i.get("session_ids", [])}
if faulty & with_issue:
    problems.append(f"simulator_error sessions counted in the target's issues: {sorted(faulty & with_issue)}")

judge = e.get("judge") or {}
judged = Counter(s["judge_status"] for s in sessions)
if judge and judge.get("reviewed", 0) != judged.get("done", 0):
    problems.append(f"judge reviews in the report ({judge.get('reviewed')}) differ from the sessions' ({judged.get('done', 0)})")
if judge and judge.get("failed", 0) != judged.get("failed", 0):
    problems.append(f"judge failures in the report ({judge.get('failed')}) differ from the sessions' ({judged.get('failed', 0)})")

provenance = report.get("provenance") or {}
if not provenance.get("nothing_left_machine", False):
    problems.append(f"something left this machine: {provenance}")


def calls(path):
    try:
        lines = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    except FileNotFoundError:
        lines = []
    seconds = [l["seconds"] for l in lines if isinstance(l.get("seconds"), (int, float))]
    return len(lines), (sum(seconds) / len(seconds) if seconds else 0.0)


rate = fixed.get("pass_rate")
print(f"fixed runs:                    {fixed['runs_finished']} of {fixed['runs_planned']} ({fixed['passed']} passed, {fixed['failed']} failed, {fixed['errors']} in error); pass rate {'—' if rate is None else f'{100 * rate:.1f}%'}")
print(f"error reasons:                 {[(r['reason'], r['count']) for r in fixed.get('error_reasons', [])]}")
print(f"sessions:                      {len(sessions)} by end reason {dict(Counter(s['end_reason'] or s['status'] for s in sessions))}")
kinds = {k: v["sessions"] for k, v in faulted_by_check.items() if v.get("sessions")}
print(f"simulator faults (apart):      {e.get('simulator_faults', 0)} session(s); by kind of the check {kinds}")
print(f"target issues:                 {len(e.get('issues', []))} in {len(with_issue)} session(s)")
print(f"judge:                         {judge.get('reviewed', 0)} reviewed, {judge.get('failed', 0)} failed, {judge.get('pending', 0)} pending")
print(f"hosts contacted:               {[(h.get('role'), h.get('host'), h.get('requests')) for h in provenance.get('hosts', [])]}")
for role, log in (("target", sys.argv[3]), ("virtual user", sys.argv[4]), ("judge", sys.argv[5])):
    n, seconds = calls(log)
    print(f"{role + ':':<14} {n} calls in all steps, mean {seconds:.2f} s per call")
if problems:
    print("PROBLEMS:")
    for p in problems:
        print(f"  - {p}")
    sys.exit(1)
print("the loop completed; model faults were classified, none counted against the target")
