#!/usr/bin/env python3
"""What the documents say of the tree and its history stays true (CONTRIBUTING.md "What the tests
check"); each failure is printed and the exit status is 1:

- commits: no tracked .md file names a commit of this project, since a hash goes stale the moment it is
  written: history lives in git. A word of 7 to 40 hex digits (at least one digit and one letter) that
  git resolves to a commit here fails; llama.cpp's commits (README's "Compatibility") are not ours, and
  the evaluation's records (eval/results/: stamps and the report made from them) are data. Outside a git
  clone (a source tarball) there is no history to resolve against, and nothing is checked.
- layout: DESIGN.md's layout table names every tracked top-level folder (as `name/` in its first column).
- presets: every preset of CMakePresets.json that is not hidden is run: by a workflow's step, or by a
  `cmake --preset`, `cmake --build --preset` or `ctest --preset` command in a tracked file; the rest
  are hidden bases.

usage: check-drift.py [ROOT]
"""

import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
HEX = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")


def git(*args, stdin=None):
    return subprocess.run(["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, text=True)


def tracked():
    listed = git("ls-files")
    return listed.stdout.split() if listed.returncode == 0 else None


def commits(files):
    found = []
    for rel in (r for r in files if r.endswith(".md") and not r.startswith("eval/results/")):
        for number, line in enumerate((ROOT / rel).read_text(errors="replace").splitlines(), 1):
            found += [(rel, number, word) for word in HEX.findall(line)]
    # One batch: git prints "<word> commit" for each that names a commit here.
    words = sorted({word for _, _, word in found})
    kinds = git("cat-file", "--batch-check=%(rest)%(objecttype)", stdin="".join(f"{w} {w} \n" for w in words))
    ours = {line.split(" ")[0] for line in kinds.stdout.splitlines() if line.endswith(" commit")}
    return sorted({f"{rel}:{number}: {word} is a commit of this project" for rel, number, word in found if word in ours})


def layout(files):
    folders = sorted({rel.split("/")[0] for rel in files if "/" in rel})
    table = [line.split("|")[1] for line in (ROOT / "DESIGN.md").read_text().splitlines() if line.startswith("| ")]
    named = {name.split("/")[0] for cell in table for name in re.findall(r"`([^`]+/)[^`]*`", cell)}
    return [f"DESIGN.md's layout table does not name the folder {folder}/" for folder in folders if folder not in named]


def presets(files):
    data = json.loads((ROOT / "CMakePresets.json").read_text())
    run = {(step["type"], step["name"]) for workflow in data.get("workflowPresets", []) for step in workflow["steps"]}
    command = re.compile(r"\b(cmake --build|ctest|cmake)\s(?:(?!--workflow)[^|;&#`\n])*?--preset[ =]([\w-]+)")
    kinds = {"cmake": "configure", "cmake --build": "build", "ctest": "test"}
    for rel in files:
        if rel != "CMakePresets.json" and (ROOT / rel).is_file():
            run |= {(kinds[tool], name) for tool, name in command.findall((ROOT / rel).read_text(errors="replace"))}
    return [f"CMakePresets.json: the {kind} preset {preset['name']} is run by no workflow and no documented command: "
            "hide it (a base) or remove it"
            for kind in ("configure", "build", "test", "package")
            for preset in data.get(f"{kind}Presets", []) if not preset.get("hidden") and (kind, preset["name"]) not in run]


def main():
    files = tracked()
    if files is None:
        print("not a git clone: nothing to check")
        return 0
    failures = commits(files) + layout(files) + presets(files)
    print("\n".join(failures) if failures else f"no drift ({len(files)} files read)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
