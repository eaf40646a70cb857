"""integration/llama.cpp/scatter.patch applies to a pristine copy of the
llama.cpp tree we build against; applying it twice is detected and changes
nothing; a tree it does not fit is refused and left untouched (issue 3, 6).

usage: test_patch.py LLAMA_CPP_SOURCE_DIR
"""

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
# The files of the tree the patch changes (it also creates common/scatter.{h,cpp}), read from it.
TOUCHED = re.findall(r"^--- a/(\S+)$", (ROOT / "integration" / "llama.cpp" / "scatter.patch").read_text(), re.M)


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


def patch(*argv):
    return subprocess.run(["bash", str(SCRIPT), *map(str, argv)], capture_output=True, text=True)


def applies_once_then_detects_itself():
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "llama.cpp"
        pristine_copy(tree)
        before = digest(tree)
        first = patch(tree)
        check(first.returncode == 0 and "applied to" in first.stdout, f"first apply failed: {first.stderr}")
        check((tree / "common" / "scatter.cpp").is_file(), "common/scatter.cpp not created")
        check("COMMON_SAMPLER_TYPE_SCATTER" in (tree / "common" / "common.h").read_text(), "common.h not patched")
        patched = digest(tree)
        check(patched != before, "the tree did not change")
        second = patch(tree)
        check(second.returncode == 0 and "already applied" in second.stdout, f"second apply not detected: {second.stdout}{second.stderr}")
        check(digest(tree) == patched, "applying twice changed the tree")


def a_tree_it_does_not_fit_is_left_untouched():
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "llama.cpp"
        pristine_copy(tree)
        # a local change on a line the patch's context needs
        sampling = tree / "common" / "sampling.cpp"
        text = sampling.read_text()
        check('return "adaptive_p";' in text, "sampling.cpp has no adaptive_p name")
        sampling.write_text(text.replace('return "adaptive_p";', 'return "adaptive-p-local";'))
        before = digest(tree)
        result = patch(tree)
        check(result.returncode != 0, "a conflicting tree was patched")
        check("does not apply cleanly" in result.stderr, f"no clear message: {result.stderr}")
        check(digest(tree) == before, "a refused patch changed the tree")


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


check(os.path.isfile(SOURCE / "include" / "llama.h"), f"{SOURCE} is not a llama.cpp tree")
run_tests([
    ("applies to a pristine tree once, then detects itself", applies_once_then_detects_itself),
    ("a tree it does not fit is refused and left untouched", a_tree_it_does_not_fit_is_left_untouched),
    ("copy mode keeps the source pristine", copy_mode_keeps_the_source_pristine),
])
