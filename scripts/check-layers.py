#!/usr/bin/env python3
"""The engine's layers, each depending only on those below it.

    0 domain     plain types and errors: what every layer speaks
    1 store      the only place with SQL (scripts/check-store-boundary.sh)
    2 channels   how the platform talks to a target; the built-in agents
    3 operations `impl Platform`, one feature a module
    4 runtime    what runs in the background: scheduler, judge worker,
                 patrol agent, retention
    5 reporting  report, findings, comparison, analysis, export

A file's code may name (`crate::module`) modules of its own layer and of
the layers below it, never of a layer above (comments may point anywhere).
This fails on an upward name. The domain and the store are crates of
their own (crates/domain, crates/store over the domain alone), which the
compiler keeps below the engine.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "crates/engine/src"
LAYERS = ["domain", "store", "channels", "operations", "runtime", "reporting"]

# Module paths (as named after `crate::`) to their layer; the longest
# matching path wins.
MODULES = {
    "domain": "domain", "error": "domain", "clock": "domain", "text": "domain",
    "store": "store", "secrets": "store",
    "channel": "channels", "demo_agent": "channels",
    "platform": "operations", "campaign": "operations", "target": "operations",
    "target_probe": "operations", "fixed": "operations", "checks": "operations",
    "scenario": "operations", "exploration": "operations", "judge": "operations",
    "calibration": "operations", "review": "operations",
    "virtual_user": "operations",
    "role_models": "operations", "audit": "operations", "paging": "operations",
    "structured": "operations", "provenance": "operations", "tally": "operations",
    "runtime": "runtime",
    # The patrol agent: playing a seed is an operation, its loop runs in
    # the background.
    "patrol_agent": "operations", "patrol_agent::agent": "runtime",
    "report": "reporting", "comparison": "reporting", "analysis": "reporting",
    "export": "reporting", "exploration::findings": "reporting",
    # Recording a closed session's issues is part of closing it.
    "exploration::findings::issues": "operations",
}
NAME = re.compile(r"\bcrate::((?:[a-z_][a-z0-9_]*)(?:::[a-z_][a-z0-9_]*)*)")


def layer_of(path: str):
    """The layer of a module path such as `exploration::findings::issues`."""
    parts = path.split("::")
    for n in range(len(parts), 0, -1):
        layer = MODULES.get("::".join(parts[:n]))
        if layer:
            return layer, "::".join(parts[:n])
    return None, parts[0]


def module_of(file: pathlib.Path) -> str:
    rel = file.relative_to(SRC).with_suffix("")
    parts = [p for p in rel.parts if p != "mod"]
    return "::".join(parts)


def main() -> int:
    problems = []
    for file in sorted(SRC.rglob("*.rs")):
        if file.name == "lib.rs" and file.parent == SRC:
            continue
        rel = str(file.relative_to(ROOT))
        own, _ = layer_of(module_of(file))
        if own is None:
            problems.append(f"{rel}: in no layer: add its module to MODULES in {__file__}")
            continue
        # Comments may point anywhere, and a file's unit tests (from its
        # `#[cfg(test)]` on) may use any layer: only code depends.
        lines = file.read_text().split("#[cfg(test)]")[0].splitlines()
        text = "\n".join(l for l in lines if not l.lstrip().startswith("//"))
        if "crate::{" in text:
            problems.append(f"{rel}: `crate::{{...}}`: name one module a `use`, so that its layer can be read")
        for m in NAME.finditer(text):
            layer, module = layer_of(m.group(1))
            if layer is None:
                problems.append(f"{rel}: names crate::{module}, in no layer: add it to MODULES")
            elif LAYERS.index(layer) > LAYERS.index(own):
                problems.append(f"{rel}: names crate::{module} ({layer}) from the {own} layer below it: "
                                "move the type it needs down (domain types into crates/domain) or the code up")
    for p in dict.fromkeys(problems):
        print(p)
    if problems:
        return 1
    print("no upward name between the engine's layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
