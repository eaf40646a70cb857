"""Helpers shared by the tests of the patched llama.cpp tools.

Every test gets the directory of the built tools and the model path on its
command line: `python3 test_x.py BIN_DIR MODEL`.
"""

import os
import subprocess
import sys

# The presets of SPEC section 6, and those that leave the ranking (hence
# greedy decoding) untouched: all but absorption, which may reorder.
PRESETS = ["subtle", "creative", "adaptive", "collision", "adaptive-absorb"]
RANK_PRESERVING = ["subtle", "creative", "adaptive", "collision"]

PROMPTS = [
    "The old lighthouse keeper opened the door and",
    "Here is a short list of things to pack for a trip to the mountains:",
    "In the beginning of the twentieth century, the city",
]

# Small, fast and deterministic: a fixed thread count, a short context, no warmup.
COMMON_ARGS = ["--threads", "2", "--ctx-size", "256", "--no-warmup"]


class Failure(Exception):
    pass


def args():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} BIN_DIR MODEL")
    return sys.argv[1], sys.argv[2]


def check(cond, message):
    if not cond:
        raise Failure(message)


def completion(bin_dir, model, prompt, extra, n_predict=32, env=None):
    """Runs llama-completion once; returns (generated text, stderr log)."""
    cmd = [os.path.join(bin_dir, "llama-completion"), "-m", model, *COMMON_ARGS,
           "-no-cnv", "--no-display-prompt", "-p", prompt, "-n", str(n_predict), *extra]
    run_env = dict(os.environ, **(env or {}))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=300)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc.stdout, proc.stderr


def run_tests(tests):
    """Runs each (name, function) and reports like the C harness."""
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}", flush=True)
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
