"""The llama.cpp integration (integration/llama.cpp/: our own files and the one-line hooks of
hooks.patch) applies to a pristine copy of the llama.cpp tree we build against; applying it
twice is detected and changes nothing; a hook whose neighbourhood moved still fits with one line
of context, with a warning naming it; a tree it does not fit is refused, left untouched, and
every hunk that did not fit is named. The hooks change at most 48 lines of
llama.cpp's files.

usage: test_patch.py LLAMA_CPP_SOURCE_DIR
"""

import contextlib
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from tools import check, run_tests

SOURCE = pathlib.Path(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "patch-llama-cpp.sh"
HOOKS = (ROOT / "integration" / "llama.cpp" / "hooks.patch").read_text()
OURS = ROOT / "integration" / "llama.cpp" / "files"
# The files of the tree the hooks change, read from the patch.
TOUCHED = re.findall(r"^--- a/(\S+)$", HOOKS, re.M)
# What stays in upstream files is hooks: a budget of changed lines.
MAX_CHANGED_LINES = 48


def digest(tree):
    h = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(tree)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def pristine_copy(dest):
    """The parts of the tree the patch touches, copied from SOURCE."""
    (dest / "include").mkdir(parents=True)
    shutil.copy(SOURCE / "include" / "llama.h", dest / "include")
    for rel in TOUCHED:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SOURCE / rel, dest / rel)


@contextlib.contextmanager
def pristine_tree():
    """A fresh copy of the parts of SOURCE the hooks touch, in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "llama.cpp"
        pristine_copy(tree)
        yield tree


def patch(*argv):
    return subprocess.run(["bash", str(SCRIPT), *map(str, argv)], capture_output=True, text=True)


def applies_once_then_detects_itself():
    with pristine_tree() as tree:
        before = digest(tree)
        first = patch(tree)
        check(first.returncode == 0 and "applied to" in first.stdout, f"first apply failed: {first.stderr}")
        check(first.stderr == "", f"the hooks needed reduced context on this tree: {first.stderr}")
        for ours in (p for p in OURS.rglob("*") if p.is_file()):
            rel = ours.relative_to(OURS)
            check((tree / rel).read_bytes() == ours.read_bytes(), f"{rel} not copied into the tree")
        check("COMMON_SAMPLER_TYPE_SCATTER" in (tree / "common" / "common.h").read_text(), "common.h not patched")
        patched = digest(tree)
        check(patched != before, "the tree did not change")
        second = patch(tree)
        check(second.returncode == 0 and "already applied" in second.stdout, f"second apply not detected: {second.stdout}{second.stderr}")
        check(digest(tree) == patched, "applying twice changed the tree")


def hooks_stay_within_budget():
    changed = [line for line in HOOKS.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))]
    check(len(changed) <= MAX_CHANGED_LINES,
          f"hooks.patch changes {len(changed)} lines of llama.cpp's files (at most {MAX_CHANGED_LINES})")
    check(not re.search(r"^new file mode", HOOKS, re.M), "hooks.patch creates a file: our files belong in files/")
    for line in changed:
        check(line.startswith("-") or "llama-scatter" in line or line.strip() in ("+});", "+        });", "+    });"),
              f"a hook line without its llama-scatter mark: {line!r}")


def local_change(tree, rel, old, new):
    path = tree / rel
    text = path.read_text()
    check(old in text, f"{rel} has no {old!r}")
    path.write_text(text.replace(old, new, 1))


def a_moved_neighbour_still_fits_with_a_warning():
    with pristine_tree() as tree:
        # a line two away from the hook changes upstream; the lines next to it do not
        local_change(tree, "common/sampling.cpp", "        case COMMON_SAMPLER_TYPE_TOP_K:       return 'k';",
                     "        case COMMON_SAMPLER_TYPE_TOP_K:       return 'K';")
        result = patch(tree)
        check(result.returncode == 0 and "applied to" in result.stdout, f"not applied: {result.stderr}")
        check("common/sampling.cpp, hunk" in result.stderr and "one line of context" in result.stderr,
              f"no warning naming the hunk: {result.stderr}")
        check("case COMMON_SAMPLER_TYPE_SCATTER:     return 'r';" in (tree / "common" / "sampling.cpp").read_text(),
              "the hook is not in place")
        again = patch(tree)
        check(again.returncode == 0 and "already applied" in again.stdout, f"not detected: {again.stdout}{again.stderr}")


def a_tree_it_does_not_fit_is_left_untouched():
    with pristine_tree() as tree:
        # local changes on the lines next to two hooks
        local_change(tree, "common/sampling.cpp", "    switch (cnstr) {\n        case COMMON_SAMPLER_TYPE_DRY:         return \"dry\";",
                     "    switch (cnstr) { // local\n        case COMMON_SAMPLER_TYPE_DRY:         return \"dry\";")
        local_change(tree, "tools/server/server-context.cpp", "    tparams.sampling = params.sampling;",
                     "    tparams.sampling = params.sampling; // local")
        before = digest(tree)
        result = patch(tree)
        check(result.returncode != 0, "a conflicting tree was patched")
        check("do not fit" in result.stderr and "Nothing was changed" in result.stderr, f"no clear message: {result.stderr}")
        named = re.findall(r"^  (\S+), hunk \d+", result.stderr, re.M)
        check(named == ["common/sampling.cpp", "tools/server/server-context.cpp"], f"the hunks that did not fit: {named}")
        check("hook:        server_scatter_props(tparams.sampling);" in result.stderr, f"the hook is not shown: {result.stderr}")
        check(digest(tree) == before, "a refused patch changed the tree")
        only = patch("--check", tree)
        check(only.returncode != 0 and only.stderr == result.stderr, "--check reports differently")


def copy_mode_keeps_the_source_pristine():
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "src"
        pristine_copy(src)
        before = digest(src)
        dest = pathlib.Path(tmp) / "patched"
        result = patch(src, dest)
        check(result.returncode == 0, f"copy mode failed: {result.stderr}")
        check(digest(src) == before, "copy mode changed the source tree")
        check((dest / "common" / "scatter.h").is_file(), "the copy is not patched")
        again = patch(src, dest)
        check(again.returncode == 0 and "up to date" in again.stdout, f"copy mode redid its work: {again.stdout}")


def an_edit_of_our_files_rewrites_only_that_file():
    """Copy mode with a copy of our integration: after an edit of one of our files and the removal
    of another, the patched copy has the edit, not the removed file, and every other file with its
    time stamp untouched (so a build recompiles only what includes the edited file)."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = pathlib.Path(tmp) / "repo"
        (repo / "scripts").mkdir(parents=True)
        shutil.copy(SCRIPT, repo / "scripts")
        shutil.copytree(OURS.parent, repo / "integration" / "llama.cpp")
        src, dest = pathlib.Path(tmp) / "src", pathlib.Path(tmp) / "patched"
        pristine_copy(src)
        script = repo / "scripts" / SCRIPT.name
        first = subprocess.run(["bash", str(script), str(src), str(dest)], capture_output=True, text=True)
        check(first.returncode == 0, f"copy mode failed: {first.stderr}")
        stamps = {p: p.stat().st_mtime_ns for p in dest.rglob("*") if p.is_file()}
        edited = pathlib.Path("tools") / "server" / "server-scatter.h"
        removed = pathlib.Path("common") / "scatter-fields.def"
        ours = repo / "integration" / "llama.cpp" / "files"
        (ours / edited).write_text((ours / edited).read_text() + "// an edit\n")
        (ours / removed).unlink()
        again = subprocess.run(["bash", str(script), str(src), str(dest)], capture_output=True, text=True)
        check(again.returncode == 0 and "up to date" in again.stdout, f"the edit re-made the copy: {again.stdout}")
        check((dest / edited).read_text().endswith("// an edit\n"), "the edit did not reach the copy")
        check(not (dest / removed).exists(), "a file no longer ours is still in the copy")
        touched = [str(p.relative_to(dest)) for p, t in stamps.items()
                   if p.exists() and p.stat().st_mtime_ns != t and p.relative_to(dest) != edited
                   and p.name != ".llama-scatter-files"]
        check(not touched, f"files the edit does not concern were rewritten: {touched[:5]}")


check(os.path.isfile(SOURCE / "include" / "llama.h"), f"{SOURCE} is not a llama.cpp tree")
run_tests([
    ("applies to a pristine tree once, then detects itself", applies_once_then_detects_itself),
    ("the hooks change at most 40 lines of llama.cpp, each marked", hooks_stay_within_budget),
    ("a hook whose neighbourhood moved fits with a warning", a_moved_neighbour_still_fits_with_a_warning),
    ("a tree it does not fit is refused, left untouched, each misfit named", a_tree_it_does_not_fit_is_left_untouched),
    ("copy mode keeps the source pristine", copy_mode_keeps_the_source_pristine),
    ("an edit of our files rewrites only that file in the copy", an_edit_of_our_files_rewrites_only_that_file),
])
