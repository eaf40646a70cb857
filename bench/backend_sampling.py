#!/usr/bin/env python3
"""Tokens per second of llama-completion with backend sampling (-bs), with scatter (a preset) and
without, in alternating runs, and with scatter falling back to the CPU (--scatter-k 300); prints each
run and the medians. A benchmark, not a test.

    python3 bench/backend_sampling.py BUILD/bin MODEL.gguf [--runs 7] [--tokens 256] [--preset creative]
        [--device-args "-ngl 99 -dev CUDA0"]

Reads llama.cpp's own timing lines: "eval time" (the generated tokens; with -bs the sampling runs in
that graph) and the whole run's "total time"."""

import argparse
import os
import re
import statistics
import subprocess

PROMPT = "Once upon a time, in a village by the sea,"


def run(bin_dir, model, tokens, seed, extra):
    cmd = [os.path.join(bin_dir, "llama-completion"), "-m", model, "--threads", "2", "--ctx-size", "512",
           "-no-cnv", "--no-display-prompt", "-p", PROMPT, "-n", str(tokens), "--ignore-eos",
           "--temp", "0.8", "--seed", str(seed), "-bs", *extra]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600).stderr
    chain = re.search(r"sampler chain: (.*)", log).group(1)
    eval_tps = float(re.search(r"\beval time =.*?([\d.]+) tokens per second", log).group(1))
    return chain, eval_tps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("model")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--preset", default="creative")
    ap.add_argument("--device-args", default="", help="llama.cpp arguments that choose the device, for every run")
    a = ap.parse_args()
    device = a.device_args.split()
    configs = {"-bs": device, f"-bs --scatter-preset {a.preset}": [*device, "--scatter-preset", a.preset],
               # k above the graph's 256 makes scatter fall back to the CPU (with the chain after it);
               # after top_k 40 the medium, and so the result, is the same as with k 64.
               f"-bs --scatter-preset {a.preset} --scatter-k 300": [*device, "--scatter-preset", a.preset,
                                                                    "--scatter-k", "300"]}
    figures = {name: [] for name in configs}
    for i in range(a.runs):
        for name, extra in configs.items():
            chain, tps = run(a.bin_dir, a.model, a.tokens, 100 + i, extra)
            figures[name].append(tps)
            print(f"run {i}  {name:32s} {tps:8.2f} tokens/s   chain: {chain}", flush=True)
    base = statistics.median(figures["-bs"])
    for name, values in figures.items():
        med = statistics.median(values)
        print(f"median {name:32s} {med:8.2f} tokens/s  ({med / base:.3f} x -bs alone; "
              f"min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
