#!/usr/bin/env python3
"""The engine's layers, each depending only on those below it.

    0 domain     plain types and errors: what every layer speaks
    1 store      the only place with SQL (scripts/check-store-boundary.sh)
    2 channels   how the platform talks to a target; the built-in agents
    3 operations `impl Platform`, one feature a module
    4 runtime    what runs in the background: scheduler, judge worker,
                 patrol agent, retention
    5 reporting  report, findings, comparison, analysis, export

The layers are the engine's top folders (crates/engine/src/<layer>/), and
lib.rs re-exports their modules under their own names (`crate::campaign`).
A file's code may name (`crate::module`) modules of its own layer and of
the layers below it, never of a layer above (comments may point anywhere),
and may not climb out of its layer with `super::`.
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
# The engine's own layers are its top folders; the two below are crates.
FOLDERS = LAYERS[2:]
CRATES = {"domain": "domain", "error": "domain", "clock": "domain", "text": "domain", "i18n": "domain", "msg": "domain",
          "store": "store", "secrets": "store"}
NAME = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")
SUPERS = re.compile(r"\b(?:super::)+")
REEXPORT = re.compile(r"pub use (" + "|".join(FOLDERS) + r")::(?:\{([^}]*)\}|([a-z_][a-z0-9_]*));")


def reexports() -> dict:
    """lib.rs re-exports each layer's modules under their own names
    (`pub use operations::{campaign, ...}`): those names and their layer."""
    names = {}
    for m in REEXPORT.finditer((SRC / "lib.rs").read_text()):
        for name in (m.group(2) or m.group(3)).split(","):
            if name.strip():
                names[name.strip()] = m.group(1)
    return names


def main() -> int:
    modules = {**CRATES, **{f: f for f in FOLDERS}, **reexports()}
    problems = []
    for file in sorted(SRC.rglob("*.rs")):
        rel = file.relative_to(SRC)
        if rel == pathlib.Path("lib.rs"):
            continue
        shown = str(file.relative_to(ROOT))
        own = rel.parts[0]
        if own not in FOLDERS:
            problems.append(f"{shown}: outside the layer folders ({', '.join(FOLDERS)}): move it into one")
            continue
        # Comments may point anywhere, and a file's unit tests (from its
        # `#[cfg(test)]` on) may use any layer: only code depends.
        lines = file.read_text().split("#[cfg(test)]")[0].splitlines()
        text = "\n".join(l for l in lines if not l.lstrip().startswith("//"))
        if "crate::{" in text:
            problems.append(f"{shown}: `crate::{{...}}`: name one module a `use`, so that its layer can be read")
        depth = len([p for p in rel.with_suffix("").parts if p != "mod"])
        for m in SUPERS.finditer(text):
            if m.group(0).count("super::") >= depth:
                problems.append(f"{shown}: `{m.group(0)}` climbs out of the {own} layer: name the module with crate::")
        for m in NAME.finditer(text):
            layer = modules.get(m.group(1))
            if layer is None:
                problems.append(f"{shown}: names crate::{m.group(1)}, in no layer: re-export it in lib.rs")
            elif LAYERS.index(layer) > LAYERS.index(own):
                problems.append(f"{shown}: names crate::{m.group(1)} ({layer}) from the {own} layer below it: "
                                "move the type it needs down (domain types into crates/domain) or the code up")
    for p in dict.fromkeys(problems):
        print(p)
    if problems:
        return 1
    print("no upward name between the engine's layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
