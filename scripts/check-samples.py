#!/usr/bin/env python3
"""Type-checks every ```swift block of the README, docs/ and the DocC catalogs.

A page reads top to bottom, so each page's blocks are checked together, in order, as one
`main.swift` (top-level code and top-level `await` work there) with one `swiftc -typecheck`, against
the modules of the package's debug build. `#sourceLocation` lines map every diagnostic back to
the page and line it came from (`README.md:72:5: error: ...`). The language mode and upcoming
features are the package's (Swift 6, ExistentialAny, MemberImportVisibility), so that a sample
compiles in a package set up as this one is, as well as in one with the defaults.

An import holds for the whole of `main.swift`, so the blocks before each block that imports a
module none of them imports are checked again on their own: a block never leans on an import
further down the page.

A block that starts with `import PackageDescription` is a package manifest: it is checked on its
own against the toolchain's manifest API.

A block that truly cannot compile is left out by an HTML comment on the line before its fence,
which must give a reason:

    <!-- samples: skip (a reason) -->

A block that needs a package trait (one that imports ReboundOTel, which is empty without the trait
OTel) says so the same way; it is checked when the build has the trait and `--traits OTel` says so,
as `make test` does, and skipped otherwise:

    <!-- samples: trait OTel -->

Pseudo-code and output take another fence (```text, or none).

    scripts/check-samples.py [--scratch-path .build] [--traits OTel] [FILE.md ...]

Needs a finished `swift build` (or `swift build --build-tests`) in the scratch path. Exits 1 when
a page does not compile, 2 when the build or the toolchain is missing.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SKIP = re.compile(r"^\s*<!--\s*samples:\s*skip\s*\((?P<reason>[^)]*)\)\s*-->\s*$")
TRAIT = re.compile(r"^\s*<!--\s*samples:\s*trait\s+(?P<trait>\w+)\s*-->\s*$")


@dataclass
class Block:
    line: int  # 1-based line of the block's first line of code
    code: list[str]


@dataclass
class Page:
    path: Path
    blocks: list[Block] = field(default_factory=list)
    manifests: list[Block] = field(default_factory=list)
    skipped: int = 0
    # The trait each block left out needs, for the blocks left out because the build lacks it.
    without_trait: list[str] = field(default_factory=list)


def default_pages(root: Path) -> list[Path]:
    pages = [root / "README.md"]
    pages += sorted((root / "docs").glob("*.md"))
    pages += sorted(p for p in (root / "Sources").glob("**/*.docc/**/*.md"))
    return [p for p in pages if p.is_file()]


def read_page(path: Path, traits: set[str]) -> Page:
    """Collects the page's swift blocks, in order, but those that need a trait not in `traits`;
    raises ValueError for a malformed page."""
    page = Page(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    previous = ""  # the last non-blank line before the current one
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            if lines[index].strip():
                previous = lines[index]
            index += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].strip()
        start = index
        index += 1
        code: list[str] = []
        while index < len(lines):
            closing = FENCE.match(lines[index])
            if closing and closing["fence"].startswith(fence[0]) and len(closing["fence"]) >= len(fence) \
                    and not closing["info"].strip():
                break
            line = lines[index]
            code.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        else:
            raise ValueError(f"{path}:{start + 1}: the fence opened here is never closed")
        index += 1
        language = info.split()[0] if info else ""
        skip = SKIP.match(previous)
        trait = TRAIT.match(previous)
        previous = ""
        if language != "swift":
            continue
        if skip:
            if not skip["reason"].strip():
                raise ValueError(f"{path}:{start}: a skipped sample must say why: <!-- samples: skip (reason) -->")
            page.skipped += 1
            continue
        if trait and trait["trait"] not in traits:
            page.without_trait.append(trait["trait"])
            continue
        block = Block(start + 2, code)
        first = next((c.strip() for c in code if c.strip() and not c.strip().startswith("//")), "")
        (page.manifests if first == "import PackageDescription" else page.blocks).append(block)
    return page


def build_flags(scratch: Path) -> list[str]:
    """The search paths of the package's modules: its Swift modules, and the module maps of its C
    targets (libcurl's, SwiftNIO's), read from the build's own compile commands."""
    plan = scratch / "debug.yaml"
    modules = scratch / "debug" / "Modules"
    if not plan.is_file() or not (modules / "Rebound.swiftmodule").exists():
        raise FileNotFoundError(f"no debug build in {scratch}: run `swift build` first")
    flags = ["-I", str(modules.resolve())]
    seen: set[str] = set()
    for args in re.findall(r'^\s*args: \[(.*)\]$', plan.read_text(encoding="utf-8"), re.M):
        words = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
        for position, word in enumerate(words):
            pair: list[str] = []
            if word.startswith("-fmodule-map-file="):
                pair = ["-Xcc", word]
            elif word == "-I" and position >= 1 and words[position - 1] == "-Xcc" \
                    and position + 2 < len(words) and words[position + 1] == "-Xcc":
                pair = ["-Xcc", "-I", "-Xcc", words[position + 2]]
            elif word.startswith("-I/usr/include"):
                pair = [word]
            key = " ".join(pair)
            if pair and key not in seen:
                seen.add(key)
                flags += pair
    cache = scratch / "debug" / "ModuleCache"
    if cache.is_dir():
        flags += ["-module-cache-path", str(cache.resolve())]
    return flags


IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?([\w.]+)")


def new_import_blocks(blocks: list[Block]) -> list[int]:
    """The indexes of the blocks, after the first, that import a module no block before them does."""
    seen: set[str] = set()
    found = []
    for index, block in enumerate(blocks):
        modules = {m[1] for m in (IMPORT.match(line) for line in block.code) if m}
        if index > 0 and modules - seen:
            found.append(index)
        seen |= modules
    return found


def main_swift(page: Page, root: Path, blocks: list[Block]) -> str:
    name = os.path.relpath(page.path.resolve(), root)
    parts = []
    for block in blocks:
        parts.append(f'#sourceLocation(file: "{name}", line: {block.line})')
        parts.extend(block.code)
        parts.append("#sourceLocation()")
    return "\n".join(parts) + "\n"


def typecheck(swiftc: str, flags: list[str], source: str, workdir: Path) -> tuple[bool, str]:
    workdir.mkdir(parents=True)
    main = workdir / "main.swift"
    main.write_text(source, encoding="utf-8")
    result = subprocess.run(
        [swiftc, "-typecheck", "-swift-version", "6", "-diagnostic-style", "llvm",
         "-enable-upcoming-feature", "ExistentialAny", "-enable-upcoming-feature", "MemberImportVisibility",
         *flags, str(main)],
        capture_output=True, text=True, cwd=workdir,
    )
    output = (result.stdout + result.stderr).strip()
    return result.returncode == 0, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch-path", default=".build", help="the build's scratch path (.build)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--traits", default="",
                        help="the package traits the build has, comma-separated as for `swift build`: "
                             "the samples that need them are checked too")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to check (all by default)")
    options = parser.parse_args()

    root = Path(__file__).resolve().parent.parent
    os.chdir(root)
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        print("check-samples: swiftc is not on PATH", file=sys.stderr)
        return 2
    try:
        flags = build_flags(Path(options.scratch_path))
        traits = {t.strip() for t in options.traits.split(",") if t.strip()}
        pages = [read_page(p, traits) for p in (options.pages or default_pages(root))]
    except (FileNotFoundError, ValueError) as error:
        print(f"check-samples: {error}", file=sys.stderr)
        return 2
    manifest_api = Path(swiftc).resolve().parent.parent / "lib" / "swift" / "pm" / "ManifestAPI"

    jobs = []  # (page, what, source, flags)
    for page in pages:
        if page.blocks:
            jobs.append((page, "page", main_swift(page, root, page.blocks), flags))
        # An import holds for the whole file, so a block that uses a module imported only further
        # down would pass with the page. The blocks before each block that imports something new
        # are checked again without it.
        for index in new_import_blocks(page.blocks):
            jobs.append((page, f"the blocks before line {page.blocks[index].line}, without its imports",
                         main_swift(page, root, page.blocks[:index]), flags))
        for manifest in page.manifests:
            # The manifest API's availability follows the tools version the manifest declares.
            declared = re.match(r"//\s*swift-tools-version:\s*([0-9.]+)", manifest.code[0] if manifest.code else "")
            version = ["-package-description-version", declared[1]] if declared else []
            jobs.append((page, f"manifest at line {manifest.line}", main_swift(page, root, [manifest]),
                         ["-I", str(manifest_api), *version]))

    started = time.monotonic()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="check-samples.") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = [
            pool.submit(typecheck, swiftc, job_flags, source, Path(scratch) / str(number))
            for number, (_, _, source, job_flags) in enumerate(jobs)
        ]
        for (page, what, _, _), future in zip(jobs, futures):
            ok, output = future.result()
            name = os.path.relpath(page.path.resolve(), root)
            if ok:
                continue
            failures += 1
            print(f"== {name} ({what}): does not compile ==")
            print(output)
    blocks = sum(len(p.blocks) + len(p.manifests) for p in pages)
    skipped = sum(p.skipped for p in pages)
    skipped_text = f", {skipped} skipped with a reason" if skipped else ""
    for trait, count in sorted(Counter(t for p in pages for t in p.without_trait).items()):
        skipped_text += f", {count} left for a build with the trait {trait}"
    print(f"check-samples: {blocks} swift blocks on {len(pages)} pages{skipped_text}; {failures} failed "
          f"({len(jobs)} swiftc runs, {time.monotonic() - started:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
