#!/usr/bin/env python3
"""Builds the DocC documentation of the libraries from the debug build (`make docs`).

    scripts/docs.py [--scratch-path .build]

For each library it extracts the symbol graph of the built module with swift-symbolgraph-extract,
with the symbols SwiftPM gives the DocC plugin (public ones, synthesized members, extension blocks
and inherited doc comments), and runs `docc convert` with the library's catalog, if it has one,
into .build/docs/<Module>.doccarchive. Any DocC warning (a broken link, an undocumented parameter) fails
it. The plugin (`swift package generate-documentation`) builds the modules once more for itself;
this reads the build that is already there.

Needs a finished `swift build` in the scratch path. Exits 1 when DocC reports a problem, 2 when the
build or the toolchain is missing.
"""

import argparse
import concurrent.futures
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["Rebound", "ReboundCurl", "ReboundTesting", "ReboundReportAnalysis"]


def load_api_summary():
    """scripts/api-summary.py, which reads the debug build's flags and extracts symbol graphs."""
    spec = importlib.util.spec_from_file_location("api_summary", ROOT / "scripts" / "api-summary.py")
    summary = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summary)
    return summary


def document(api_summary, module: str, flags: list[str], graphs: Path, output: Path) -> tuple[bool, str]:
    """Extracts `module`'s symbol graph into `graphs` and converts it into `output`."""
    extract = api_summary.extract_symbol_graphs(module, flags, graphs, "-emit-extension-block-symbols")
    if extract.returncode != 0:
        return False, (extract.stdout + extract.stderr).strip()
    catalogs = sorted((ROOT / "Sources" / module).glob("*.docc"))
    shutil.rmtree(output, ignore_errors=True)
    convert = subprocess.run(
        ["docc", "convert", *(str(c) for c in catalogs[:1]),
         "--fallback-display-name", module, "--fallback-bundle-identifier", module,
         "--additional-symbol-graph-dir", str(graphs), "--output-path", str(output), "--emit-lmdb-index",
         "--warnings-as-errors"],
        capture_output=True, text=True)
    return convert.returncode == 0, (convert.stdout + convert.stderr).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch-path", type=Path, default=ROOT / ".build", help="the build to read (.build)")
    options = parser.parse_args()
    if any(shutil.which(tool) is None for tool in ("swiftc", "docc", "swift-symbolgraph-extract")):
        print("docs: swiftc, docc or swift-symbolgraph-extract is not on PATH (all come with Swift)",
              file=sys.stderr)
        return 2
    api_summary = load_api_summary()
    try:
        flags = api_summary.build_flags(options.scratch_path)
    except FileNotFoundError as error:
        print(f"docs: {error}", file=sys.stderr)
        return 2
    out = ROOT / ".build" / "docs"
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="docs.") as temporary, \
            concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            module: pool.submit(document, api_summary, module, flags, Path(temporary) / module,
                                out / f"{module}.doccarchive")
            for module in MODULES
        }
        for module, future in futures.items():
            ok, output = future.result()
            if ok:
                print(f"docs: {out / module}.doccarchive")
                continue
            failures += 1
            print(f"== docs: {module} ==")
            print(output)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
