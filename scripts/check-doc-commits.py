#!/usr/bin/env python3
"""No document names a commit of this project: history lives in git, and a hash in a document goes
stale the moment it is written (CONTRIBUTING.md "What the tests check"). Every word of 7 to 40 hex digits (with at
least one digit and one letter) in a tracked .md file that git resolves to a commit of this repository
is printed, and the exit status is 1. llama.cpp's commits (the trees README's "Compatibility" names)
are not ours and pass; so do the evaluation's records (eval/results/: its stamps and the report made
from them, data that says which commit ran, not documents).
Outside a git clone (a source tarball) there is no history to resolve against, and nothing is checked.

usage: check-doc-commits.py [ROOT]
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
HEX = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")


def git(*args, stdin=None):
    return subprocess.run(["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, text=True)


def main():
    listed = git("ls-files", "*.md")
    if listed.returncode != 0:
        print("not a git clone: nothing to check")
        return 0
    found = []
    for rel in (r for r in listed.stdout.split() if not r.startswith("eval/results/")):
        for number, line in enumerate((ROOT / rel).read_text(errors="replace").splitlines(), 1):
            found += [(rel, number, word) for word in HEX.findall(line)]
    # One batch: git prints "<word> commit" for each that names a commit here.
    words = sorted({word for _, _, word in found})
    kinds = git("cat-file", "--batch-check=%(rest)%(objecttype)", stdin="".join(f"{w} {w} \n" for w in words))
    ours = {line.split(" ")[0] for line in kinds.stdout.splitlines() if line.endswith(" commit")}
    named = sorted({f"{rel}:{number}: {word} is a commit of this project" for rel, number, word in found if word in ours})
    print("\n".join(named) if named else f"no document names a commit of this project ({len(words)} hex words read)")
    return 1 if named else 0


if __name__ == "__main__":
    sys.exit(main())
