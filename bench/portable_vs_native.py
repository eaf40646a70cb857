#!/usr/bin/env python3
"""Tokens per second of llama-completion with scatter from two builds on one machine, in alternating
runs: the release (portable: ggml's CPU variant chosen at run time, the Rust library for generic
x86-64) and a native build (-march=native, -C target-cpu=native). Prints each run and the medians of
the prompt and of the generated tokens. A benchmark, not a test.

    python3 bench/portable_vs_native.py RELEASE/bin NATIVE/bin MODEL.gguf [--runs 7] [--tokens 128]

The release's folder is the extracted archive's bin/ (it runs with a clean environment, as a user
runs it); the native one a build's bin/ (build-test/bin). Reads llama.cpp's own timing lines."""

import argparse
import os
import re
import statistics
import subprocess

PROMPT = "Once upon a time, in a village by the sea, there lived an old fisherman who"


def run(bin_dir, model, tokens):
    cmd = ["env", "-i", os.path.join(bin_dir, "llama-completion"), "-m", model, "-no-cnv", "--no-warmup",
           "-p", PROMPT, "-n", str(tokens), "--ignore-eos", "--threads", str(os.cpu_count()), "--seed", "1",
           "--scatter-preset", "creative"]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    rates = dict(re.findall(r"(prompt eval|\beval) time = .*?([0-9.]+) tokens per second", log))
    return float(rates["prompt eval"]), float(rates["eval"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("release_bin")
    parser.add_argument("native_bin")
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()
    builds = {"release": args.release_bin, "native": args.native_bin}
    results = {name: [] for name in builds}
    for i in range(args.runs):
        order = list(builds) if i % 2 == 0 else list(reversed(builds))
        for name in order:
            prompt, generated = run(builds[name], args.model, args.tokens)
            results[name].append((prompt, generated))
            print(f"run {i + 1} {name:8} prompt {prompt:8.1f} t/s  generated {generated:7.1f} t/s", flush=True)
    for name, rows in results.items():
        print(f"median {name:8} prompt {statistics.median(r[0] for r in rows):8.1f} t/s  "
              f"generated {statistics.median(r[1] for r in rows):7.1f} t/s  ({args.runs} runs)")


if __name__ == "__main__":
    main()
