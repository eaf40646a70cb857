"""The library never depends on the tools: configured against a llama.cpp tree the hooks
do not fit, the superbuild still configures the library, its C suites and the install rules, skips
the tools with one warning naming the hunk that did not fit and the two ways out; with
LLAMA_SCATTER_TOOLS_REQUIRED=ON the same report is an error.

usage: test_configure.py LLAMA_CPP_SOURCE_DIR
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from tools import check, run_tests

SOURCE = pathlib.Path(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]


def misfit_tree(dest):
    """SOURCE, hard-linked (no copy of its 100 MB), with a local change beside one hook."""
    shutil.copytree(SOURCE, dest, copy_function=os.link)
    rel = dest / "tools" / "server" / "server-context.cpp"
    text = rel.read_text()
    rel.unlink()  # a new file, not a write through the link into SOURCE
    rel.write_text(text.replace("    tparams.sampling = params.sampling;", "    tparams.sampling = params.sampling; // local", 1))


def configure(tree, build, *extra):
    return subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", f"-DLLAMA_CPP_SOURCE_DIR={tree}",
         "-DLLAMA_SCATTER_LLAMA_TOOLS=ON", "-DLLAMA_SCATTER_PYTHON=OFF", "-DLLAMA_SCATTER_BUILD_EXAMPLES=OFF",
         "-DCMAKE_BUILD_TYPE=Release", *extra],
        capture_output=True, text=True, timeout=600)


def a_misfit_skips_the_tools_with_one_warning():
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "llama.cpp"
        misfit_tree(tree)
        build = pathlib.Path(tmp) / "build"
        result = configure(tree, build)
        out = result.stdout + result.stderr
        check(result.returncode == 0, f"configure failed: {out[-3000:]}")
        check(out.count("do not fit") == 1, f"not one warning: {out.count('do not fit')}")
        check("tools/server/server-context.cpp, hunk" in out, "the warning names no hunk")
        check("cmake --workflow --preset tools" in out and "CONTRIBUTING.md" in out, "the ways out are not named")
        ninja = (build / "build.ninja").read_text()
        check("llama_scatter" in ninja and "test_invariants" in ninja, "the library or its C suites are not configured")
        check("llama-server" not in ninja, "the tools are configured from an unpatched tree")
        tests = subprocess.run(["ctest", "-N", "--test-dir", str(build)], capture_output=True, text=True).stdout
        check("test_backend_sampling" in tests and "tools_cli" not in tests, f"tests registered: {tests}")
        check("llama-scatter.h" in (build / "cmake_install.cmake").read_text(), "no install rule for the header")


def required_tools_make_it_an_error():
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "llama.cpp"
        misfit_tree(tree)
        result = configure(tree, pathlib.Path(tmp) / "build", "-DLLAMA_SCATTER_TOOLS_REQUIRED=ON")
        out = result.stdout + result.stderr
        check(result.returncode != 0, "a tree the hooks do not fit configured with the tools required")
        check("CMake Error" in out and "tools/server/server-context.cpp, hunk" in out, f"no error naming the hunk: {out[-2000:]}")


check(os.path.isfile(SOURCE / "include" / "llama.h"), f"{SOURCE} is not a llama.cpp tree")
run_tests([
    ("a tree the hooks do not fit: library configured, tools skipped, one warning", a_misfit_skips_the_tools_with_one_warning),
    ("with the tools required it is an error", required_tools_make_it_an_error),
])
