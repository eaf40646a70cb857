#!/usr/bin/env python3
"""Every section cited by name exists: a citation such as `CONTRIBUTING.md "Continuous integration"`,
`(README.md, "Compatibility")` or `README "Compatibility"`, in any tracked file, names a section of
that document: a markdown heading (`#` to `####`) or a paragraph's bold lead (`**Name**`, `- **Name.**`)
whose text starts with the quoted name ("Device backends" names "Device backends (backend
sampling)"). Prints each one that does not and exits 1.

usage: check-doc-sections.py [ROOT]
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
# DOC.md "Name", DOC.md, "Name", [DOC.md](DOC.md), "Name", DOC.md section "Name", DOC "Name".
CITATION = re.compile(r'\b([A-Z][A-Z_]+)(?:\.md)?(?:\]\([^)]*\))?,? (?:section )?"([^"\n]+)"')
TEXT = (".md", ".rs", ".py", ".sh", ".cmake", ".txt", ".c", ".h", ".cpp", ".ts", ".json", ".toml", ".in", "run")


def sections(doc):
    pattern = r"^#{1,4} (.+)$|^(?:- )?\*\*([^*]+)\*\*"
    return [(m.group(1) or m.group(2)).strip() for m in re.finditer(pattern, doc.read_text(), re.M)]


def tracked_files():
    """git's list of the tracked files; outside a clone (a source tarball), every file but build
    output and fetched trees."""
    try:
        return subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                              check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        skip = (".git", ".deps", "build", "target", "node_modules")
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                if p.is_file() and not any(part.startswith(skip) for part in p.relative_to(ROOT).parts)]


def main():
    files = tracked_files()
    docs = {p.stem: p for p in ROOT.glob("*.md")}
    known = {name: sections(path) for name, path in docs.items()}
    missing = []
    for rel in files:
        if not rel.endswith(TEXT):
            continue
        path = ROOT / rel
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for doc, section in CITATION.findall(line):
                if doc in known and not any(name.startswith(section) for name in known[doc]):
                    missing.append(f"{rel}:{number}: {doc}.md has no section \"{section}\"")
    print("\n".join(missing) if missing else f"every cited section exists ({len(files)} files read)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
