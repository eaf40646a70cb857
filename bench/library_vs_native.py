#!/usr/bin/env python3
"""Times libllama_scatter builds side by side with scatter-bench (BENCHMARKS.md, "The portable
library against a native one"): each build's folder is put first on LD_LIBRARY_PATH in turn,
alternating, RUNS times; the table is the median ns per apply over the runs of each build, and each
build's ratio to the first one. A benchmark, not a test: it reports figures and checks nothing.

usage: library_vs_native.py SCATTER_BENCH LLAMA_LIB_DIR NAME=FOLDER [NAME=FOLDER ...] [--runs N]

FOLDER holds the library under the name scatter-bench was linked against (its DT_NEEDED, e.g.
libllama_scatter.so.0.1). llama.cpp's own samplers run in every run: anchors that should not move.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

CASES = [
    ("zipf top-40 sorted", "scatter creative"),
    ("zipf top-40 sorted", "scatter adaptive"),
    ("zipf top-40 sorted", "scatter adaptive-absorb"),
    ("zipf top-40 sorted", "scatter creative steps=4"),
    ("zipf top-64 sorted", "scatter creative k=256"),
    ("zipf 262144 unsorted", "scatter creative"),
    ("zipf top-40 sorted", "llama dist"),
    ("zipf top-40 sorted", "llama top_k(40)"),
    ("zipf 262144 unsorted", "llama min_p(0.05)"),
]


def run(bench, lib_dir, folder):
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        env = dict(os.environ, LD_LIBRARY_PATH=f"{folder}:{lib_dir}")
        subprocess.run([bench, "--csv", out.name], env=env, check=True, stdout=subprocess.DEVNULL)
        with open(out.name, newline="") as f:
            return {(r["input"], r["sampler"]): float(r["median_ns"]) for r in csv.DictReader(f)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench")
    parser.add_argument("lib_dir")
    parser.add_argument("builds", nargs="+", help="NAME=FOLDER")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    times = {name: [] for name, _ in builds}
    for i in range(args.runs):
        for name, folder in builds:
            print(f"run {i + 1}/{args.runs}: {name}", file=sys.stderr)
            times[name].append(run(args.bench, args.lib_dir, folder))
    medians = {name: {case: statistics.median(r[case] for r in runs) for case in CASES}
               for name, runs in times.items()}
    first = builds[0][0]
    names = [name for name, _ in builds]
    print("| input | sampler | " + " | ".join(f"{n} (ns)" for n in names) + " | "
          + " | ".join(f"{n} / {first}" for n in names[1:]) + " |")
    print("|---|---|" + "---:|" * (2 * len(names) - 1))
    for case in CASES:
        cells = [f"{medians[n][case]:,.0f}" for n in names]
        ratios = [f"{medians[n][case] / medians[first][case]:.2f}" for n in names[1:]]
        print(f"| {case[0]} | {case[1]} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
