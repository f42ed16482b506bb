#!/usr/bin/env python3
"""The public API of each library product, as sorted text: one line per public declaration.

    scripts/api-summary.py            writes api/<Module>.txt from the debug build (`make api`); the
                                      modules of the trait OTel only when the build has the trait
    scripts/api-summary.py --check    compares them with the committed ones (`make test`), and
                                      checks that a module's DocC catalog lists each of its
                                      public types in its topics
    --scratch-path PATH               the build to read (.build by default)

The summary comes from the built modules through swift-symbolgraph-extract (in the toolchain),
with the search paths of the package's C modules taken as the sample checker takes them. Each
line is the declaration's path and its declaration, without documentation, so a public change
shows as a line added, removed or changed in review.
"""
from __future__ import annotations

import argparse
import difflib
import functools
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["Rebound", "ReboundCurl", "ReboundTesting", "ReboundMockBackend", "ReboundReportAnalysis", "ReboundPrometheus"]
# Whose sources are all behind the package trait OTel: built empty without it, so summarized and
# checked only when the build has the trait (make test's build does), left as committed otherwise.
TRAIT_MODULES = ["ReboundOTel"]


def build_flags(scratch: Path) -> list[str]:
    """The search paths of the debug build in `scratch`, as swift-symbolgraph-extract takes them."""
    spec = importlib.util.spec_from_file_location("check_samples", ROOT / "scripts" / "check-samples.py")
    samples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(samples)
    flags = samples.build_flags(scratch)
    # symbolgraph-extract has no module cache option of swiftc's spelling.
    if "-module-cache-path" in flags:
        index = flags.index("-module-cache-path")
        del flags[index:index + 2]
    return flags


@functools.cache
def target_triple() -> str:
    target = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True)
    return json.loads(target.stdout)["target"]["triple"]


def extract_symbol_graphs(module: str, flags: list[str], output: Path, *options: str) -> subprocess.CompletedProcess:
    """Runs swift-symbolgraph-extract on the built `module`, public symbols only, into `output`
    (made here), with `options` besides; returns its result, output captured."""
    output.mkdir(parents=True)
    tool = shutil.which("swift-symbolgraph-extract") or "swift-symbolgraph-extract"
    return subprocess.run(
        [tool, "-module-name", module, "-target", target_triple(), "-output-dir", str(output),
         "-minimum-access-level", "public", *options, *flags],
        capture_output=True, text=True)


def summary(module: str, flags: list[str], workdir: Path) -> str:
    output = workdir / module
    extracted = extract_symbol_graphs(module, flags, output, "-skip-synthesized-members")
    if extracted.returncode != 0:
        sys.stderr.write(extracted.stdout + extracted.stderr)
        extracted.check_returncode()
    lines: set[str] = set()
    for graph in sorted(output.glob("*.symbols.json")):
        # Rebound@Swift.symbols.json: extensions of another module's types.
        extended = graph.name.split("@")[1].split(".")[0] if "@" in graph.name else None
        content = json.loads(graph.read_text(encoding="utf-8"))
        paths: dict[str, str] = {}
        for symbol in content["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            path = ".".join(symbol["pathComponents"])
            if extended:
                path = f"{extended}.{path}"
            paths[symbol["identifier"]["precise"]] = path
            declaration = "".join(fragment["spelling"] for fragment in symbol["declarationFragments"])
            lines.add(f"{path}: {' '.join(declaration.split())}")
        # Conformances are API too: a type that stops being Sendable breaks its users.
        for relation in content.get("relationships", []):
            if relation["kind"] == "conformsTo" and relation["source"] in paths:
                target = relation.get("targetFallback") or relation["target"]
                lines.add(f"{paths[relation['source']]}: conforms to {target}")
    return "\n".join(sorted(lines)) + "\n"


TOP_LEVEL_TYPE = re.compile(r"^(\w+): (?:public )?(?:final class|class|struct|enum|protocol|actor|typealias) ")


def uncurated(module: str, text: str) -> list[str]:
    """The module's top-level public types that its DocC catalog (if it has one) never lists as
    ``Type``: DocC would file them under a generic heading, away from the types they go with."""
    catalogs = list((ROOT / "Sources" / module).glob("*.docc"))
    if not catalogs:
        return []
    pages = "".join(page.read_text(encoding="utf-8") for page in catalogs[0].rglob("*.md"))
    types = {match.group(1) for line in text.splitlines() if (match := TOP_LEVEL_TYPE.match(line))}
    return sorted(name for name in types if f"``{name}``" not in pages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with api/ instead of writing it")
    parser.add_argument("--scratch-path", type=Path, default=ROOT / ".build", help="the build to read (.build)")
    options = parser.parse_args()
    check = options.check
    api = ROOT / "api"
    flags = build_flags(options.scratch_path)
    changed: list[str] = []
    failed = False
    summarized = 0
    with tempfile.TemporaryDirectory() as temporary:
        for module in MODULES + TRAIT_MODULES:
            text = summary(module, flags, Path(temporary))
            if module in TRAIT_MODULES and not text.strip():
                print(f"api-summary: {module} is empty in this build (no trait OTel); api/{module}.txt left as it is")
                continue
            summarized += 1
            committed = api / f"{module}.txt"
            if not check:
                api.mkdir(exist_ok=True)
                committed.write_text(text, encoding="utf-8")
                continue
            if missing := uncurated(module, text):
                failed = True
                print(f"api-summary: {module}'s DocC catalog lists no topic for {', '.join(missing)}; "
                      f"add each to a Topics group of Sources/{module}/*.docc.")
            old = committed.read_text(encoding="utf-8") if committed.is_file() else ""
            if old != text:
                changed.append(module)
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True),
                    f"api/{module}.txt (committed)", f"api/{module}.txt (built)", n=0))
    if changed:
        print(f"\napi-summary: the public API of {', '.join(changed)} changed. If that is meant, "
              "run `make api` and commit api/; else make the declarations internal or package.")
        return 1
    if failed:
        return 1
    print(f"api-summary: {summarized} modules {'match api/' if check else 'written to api/'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
