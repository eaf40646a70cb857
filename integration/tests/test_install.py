"""`cmake --install` of a build with the patched tools gives a relocatable prefix: installed into one
folder, then moved to another, its llama-server starts with no library path set (the tools find
their libraries through $ORIGIN-relative run paths), answers /health, runs scatter for a request,
and serves its web UI's page where the build embedded one.

usage: test_install.py BUILD_DIR UI(ON|OFF) MODEL
"""

import os
import shutil
import subprocess
import sys
import tempfile

from tools import Failure, Server, check, run_tests

if len(sys.argv) != 4:
    sys.exit(f"usage: {sys.argv[0]} BUILD_DIR UI(ON|OFF) MODEL")
BUILD, UI, MODEL = sys.argv[1], sys.argv[2] == "ON", sys.argv[3]
TOOLS = ["llama-server", "llama-cli", "llama-completion"]
# Nothing may reach the build tree's libraries: not CTest's library path either.
os.environ.pop("LD_LIBRARY_PATH", None)


def install(prefix):
    proc = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], capture_output=True, text=True)
    check(proc.returncode == 0, f"cmake --install failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def the_tools_are_installed():
    for tool in TOOLS:
        path = os.path.join(moved, "bin", tool)
        check(os.access(path, os.X_OK), f"{tool} is not installed")
        version = subprocess.run([path, "--version"], capture_output=True, text=True)
        check(version.returncode == 0 and "+scatter" in version.stdout + version.stderr,
              f"{tool} --version from the moved prefix: {version.returncode} {version.stderr[-1000:]}")


def the_moved_server_serves():
    server = Server(os.path.join(moved, "bin"), MODEL)
    try:
        server.wait_ready()
        status, body = server.request("/completion", {"prompt": "Once upon a time", "n_predict": 8, "seed": 1,
                                                      "scatter_preset": "creative"})
        check(status == 200, f"/completion -> {status}: {body}")
        check(body["generation_settings"]["scatter_enabled"], "scatter did not run in the installed server")
        if UI:
            server.check_ui_page()
        else:
            print("note: this build has no web UI; its page is not checked", flush=True)
    except Failure:
        print(server.tail())
        raise
    finally:
        server.stop()


with tempfile.TemporaryDirectory() as folder:
    first, moved = os.path.join(folder, "first"), os.path.join(folder, "moved")
    try:
        install(first)
        shutil.move(first, moved)
    except Failure as e:
        raise SystemExit(f"FAIL install: {e}")
    run_tests([
        ("the tools are installed and run from the moved prefix", the_tools_are_installed),
        ("the moved prefix's llama-server serves scatter and its page", the_moved_server_serves),
    ])
