#!/usr/bin/env python3
"""No source file over 700 lines and no Rust function over 150, tests apart.

A file that long holds several jobs and is split along its seams; a
function that long does several things and is split into steps.

Counted: Rust under crates/*/src and src-tauri/src without its test code
(every item under `#[cfg(test)]`, wherever it stands in the file), and
TypeScript under ui/src except the generated bindings and the two
dictionaries (ui/src/i18n/en.ts, zh.ts: data, one phrase a line, checked
key by key by tests/ui/). Tests folders and generated code are not counted.

Functions longer than the limit when the check was introduced are listed
in scripts/long-functions.txt with their length then: each may only get
shorter (and leaves the list once it fits), and no other may join them.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE = 700
MAX_FN = 150
KNOWN = ROOT / "scripts" / "long-functions.txt"
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)")


def code_only(line, state):
    """The line without comments and the contents of string literals, so
    that braces in them do not count; `state` carries a block comment or a
    raw string across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"] = False
            i = end + 2
            continue
        if state["raw"] is not None:
            end = line.find('"' + "#" * state["raw"], i)
            if end < 0:
                return "".join(out)
            i = end + 1 + state["raw"]
            state["raw"] = None
            continue
        if state["str"]:
            j = i
            while j < len(line):
                if line[j] == "\\":
                    j += 2
                    continue
                if line[j] == '"':
                    break
                j += 1
            if j >= len(line):
                return "".join(out)
            state["str"] = False
            i = j + 1
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        m = re.match(r'b?r(#*)"', line[i:])
        if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
            state["raw"] = len(m.group(1))
            i += m.end()
            continue
        if c == '"':
            state["str"] = True
            i += 1
            continue
        m = re.match(r"'(\\.|[^\\'])'", line[i:])
        if m:
            i += m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def rust_counts(path):
    """Lines outside test code, and (name, line, length) of each function
    outside test code."""
    lines = path.read_text(encoding="utf-8").splitlines()
    state = {"block": False, "raw": None, "str": False}
    counted = 0
    functions = []
    depth = 0
    skip_until = None  # depth to return to when a test item ends
    pending_test = False
    open_fns = []  # (name, start line, depth at its body's opening)
    for n, raw in enumerate(lines, 1):
        code = code_only(raw, state)
        stripped = code.strip()
        in_test = skip_until is not None
        if not in_test and stripped.startswith("#[cfg(test)]"):
            pending_test = True
        if not in_test and not pending_test:
            counted += 1
            m = FN.match(code)
            if m and "{" in code:
                open_fns.append((m.group(1), n, depth))
            elif m:
                open_fns.append((m.group(1), n, None))
        for ch in code:
            if ch == "{":
                if pending_test and skip_until is None:
                    skip_until = depth
                    pending_test = False
                for i, (name, start, d) in enumerate(open_fns):
                    if d is None:
                        open_fns[i] = (name, start, depth)
                depth += 1
            elif ch == "}":
                depth -= 1
                if skip_until is not None and depth == skip_until:
                    skip_until = None
                while open_fns and open_fns[-1][2] is not None and depth == open_fns[-1][2]:
                    name, start, _ = open_fns.pop()
                    functions.append((name, start, n - start + 1))
            elif ch == ";" and pending_test and depth >= 0 and skip_until is None:
                # `#[cfg(test)] mod tests;` or a test-only `use`.
                pending_test = False
        # A declaration without a body (`fn f();` in a trait) is no function.
        open_fns = [f for f in open_fns if not (f[2] is None and code.rstrip().endswith(";"))]
    return counted, functions


def sources():
    for base in [*sorted((ROOT / "crates").glob("*/src")), ROOT / "src-tauri" / "src", ROOT / "ui" / "src"]:
        for p in sorted(base.rglob("*")):
            rel = p.relative_to(ROOT).as_posix()
            if p.suffix not in (".rs", ".ts", ".tsx") or "/tests/" in rel or p.name == "tests.rs":
                continue
            if p.name == "bindings.ts" or rel in ("ui/src/i18n/en.ts", "ui/src/i18n/zh.ts"):
                continue
            yield p, rel


def main():
    known = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            place, length = line.rsplit(" ", 1)
            known[place] = int(length)
    problems = []
    seen = set()
    for path, rel in sources():
        if path.suffix == ".rs":
            lines, functions = rust_counts(path)
        else:
            lines, functions = len(path.read_text(encoding="utf-8").splitlines()), []
        if lines > MAX_FILE:
            problems.append(f"{rel}: {lines} lines (at most {MAX_FILE} outside tests): split it along its seams")
        for name, start, length in functions:
            if length <= MAX_FN:
                continue
            place = f"{rel}::{name}"
            seen.add(place)
            allowed = known.get(place)
            if allowed is None:
                problems.append(f"{rel}:{start}: fn {name} is {length} lines (at most {MAX_FN} outside tests): split it into steps")
            elif length > allowed:
                problems.append(f"{rel}:{start}: fn {name} grew to {length} lines (listed at {allowed}, at most {MAX_FN}): make it shorter, not longer")
    for place in sorted(set(known) - seen):
        problems.append(f"scripts/long-functions.txt: {place} is at most {MAX_FN} lines now (or gone): take it off the list")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"no source file over {MAX_FILE} lines, no function over {MAX_FN} but the {len(known)} listed to shrink")
    return 0


if __name__ == "__main__":
    sys.exit(main())
