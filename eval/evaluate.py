#!/usr/bin/env python3
"""The pre-registered evaluation of EVALUATION.md, its command line: plans
the runs, drives scatter-eval, chooses the competitors on dev prompts, and
has report.py render the analysis (analysis.py: bootstrap intervals, Holm,
the decision rule).

  evaluate.py all --exe SCATTER_EVAL      fetch both models, run every stage for both, analyze
  evaluate.py run --exe SCATTER_EVAL --generator NAME --model GGUF --scorer GGUF [--stage STAGE]
  evaluate.py analyze
  evaluate.py smoke --exe SCATTER_EVAL --out DIR --model GGUF

Records: eval/results/<generator>/{dev,a,b}.jsonl.gz (one JSON object per
continuation) and factual.jsonl.gz; stamp.json says what produced them.
Standard library only.
"""

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import report
from analysis import CHAINS, PRESETS, Analysis, fmt, read_records

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROMPTS = os.path.join(HERE, "prompts")
RESULTS = os.path.join(HERE, "results")

STRENGTHS = [0.06, 0.30, 0.50]  # with creative's 0.18, the strength sweep
FIXED = 0.075  # collision's mean strength, 0.25 x 0.30
GRIDS = {
    "xtc": [(0.1, 0.1), (0.25, 0.1), (0.5, 0.1), (0.5, 0.2)],
    "dyn": [(0.2, 1), (0.4, 1), (0.6, 1), (0.4, 2)],
    "adaptive-p": [(0.3, 0.9), (0.5, 0.9), (0.7, 0.9), (0.5, 0.99)],
}
SEED_BASE = {"a": 1000, "b": 500000}
CHUNK = 8  # open-ended prompts per engine run: a stage resumes from its finished chunks
LLAMA_CPP = "0c1e570 (vendor/llama.cpp of the llama-cpp-python 0.3.36 sdist)"


# ---------------------------------------------------------------- plans

def row(label, chain, temp, sampler):
    return (label, chain, temp, sampler)


def curve(chain):
    return [row(f"{chain}:temp@{fmt(t)}", chain, t, "temp") for t in CHAINS[chain][1]]


def scatter(chain, preset):
    return row(f"{chain}:{preset}", chain, CHAINS[chain][0], f"scatter:{preset}")


def competitor(chain, kind, a, b):
    return row(f"{chain}:{kind}({fmt(a)},{fmt(b)})", chain, CHAINS[chain][0], f"{kind}:{fmt(a)},{fmt(b)}")


def fixed(chain, s):
    return row(f"{chain}:fixed@{fmt(s)}", chain, CHAINS[chain][0], f"scatter-fixed:{fmt(s)}")


def plan_dev():
    return curve("D") + [competitor("D", k, a, b) for k, grid in GRIDS.items() for a, b in grid]


def plan_a(chosen):
    p = []
    for c in CHAINS:
        p += curve(c)
    p += [scatter("D", name) for name in PRESETS]
    p += [fixed("D", s) for s in STRENGTHS + [FIXED]]
    p += [competitor("D", k, a, b) for k, a, b in chosen]
    for c in "KNM":
        p += [scatter(c, name) for name in ("creative", "adaptive", "collision")]
    return p


def plan_b():
    p = []
    for c in CHAINS:
        p += curve(c) + [scatter(c, "creative")]
    return p + [scatter("D", "adaptive"), scatter("D", "collision"), fixed("D", FIXED)]


def write_plan(rows, path):
    with open(path, "w") as f:
        for label, chain, temp, sampler in rows:
            f.write(f"{label}\t{chain}\t{fmt(temp)}\t{sampler}\n")


# ---------------------------------------------------------------- running

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def engine(exe, model, scorer, plan_rows, prompts, out_gz, seed_base, extra=()):
    """One scatter-eval run into out_gz (factual prompts when prompts is a .tsv)."""
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "plan.tsv")
        write_plan(plan_rows, plan)
        raw = os.path.join(tmp, "out.jsonl")
        cmd = [exe, "-m", model, "--plan", plan, "--out", raw, "--seed-base", str(seed_base), *extra]
        cmd += ["--factual", prompts] if prompts.endswith(".tsv") else ["--scorer", scorer, "--prompts", prompts]
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True)
        with open(raw, "rb") as f, gzip.open(out_gz + ".tmp", "wb") as g:
            g.write(f.read())
    os.replace(out_gz + ".tmp", out_gz)


def engine_chunked(exe, model, scorer, plan_rows, prompts, out_gz, seed_base, extra, parts):
    """engine() on CHUNK prompts at a time, each chunk kept as
    <stage>-pNNN.jsonl.gz until all are done, then joined into out_gz: an
    interrupted stage (a session's end) resumes where it stopped. parts
    records each chunk's commit and seconds."""
    n = sum(1 for line in open(prompts) if line.strip() and not line.startswith("#"))
    chunks = []
    for first in range(0, n, CHUNK):
        chunk = out_gz.replace(".jsonl.gz", f"-p{first:03d}.jsonl.gz")
        chunks.append(chunk)
        if os.path.exists(chunk):
            continue
        start = time.time()
        engine(exe, model, scorer, plan_rows, prompts, chunk, seed_base,
               [*extra, "--first", str(first), "--count", str(CHUNK)])
        parts[str(first)] = {"commit": git_commit(), "seconds": round(time.time() - start)}
        yield
    with gzip.open(out_gz + ".tmp", "wb") as g:
        for chunk in chunks:
            with gzip.open(chunk, "rb") as f:
                g.write(f.read())
    os.replace(out_gz + ".tmp", out_gz)
    for chunk in chunks:
        os.remove(chunk)


def choose(dev_records):
    """The two settings of each competitor with the largest dev distance,
    among those inside the dev curve's diversity range (nearest fill in)."""
    a = Analysis(dev_records)
    full = a.estimates(a.prompts)
    xs, _ = a.curve("D", a.prompts)
    chosen = []
    for kind, grid in GRIDS.items():
        cands = []
        for x, y in grid:
            label = f"D:{kind}({fmt(x)},{fmt(y)})"
            h = a.point(label, a.prompts)[0]
            outside = max(xs[0] - h, h - xs[-1], 0.0)
            cands.append((outside > 0, outside, -full[label], (kind, x, y)))
        chosen += [c[3] for c in sorted(cands)[:2]]
    return chosen


def run(args):
    out = os.path.join(RESULTS, args.generator)
    os.makedirs(out, exist_ok=True)
    stages = args.stage or ["dev", "a", "factual", "b"]
    stamp_path = os.path.join(out, "stamp.json")
    stamp = json.load(open(stamp_path)) if os.path.exists(stamp_path) else {}
    stamp.update({"generator": args.generator, "model_sha256": sha256(args.model),
                  "scorer_sha256": sha256(args.scorer), "llama_cpp": args.llama_cpp})
    extra = ["-t", str(args.threads)]
    def save():
        with open(stamp_path, "w") as f:
            json.dump(stamp, f, indent=1)

    for stage in stages:
        path = os.path.join(out, f"{stage}.jsonl.gz")
        if os.path.exists(path) and not args.force:
            print(f"{path} exists, kept", file=sys.stderr)
            continue
        info = stamp.setdefault("stages", {}).setdefault(stage, {})
        if stage == "factual":
            start = time.time()
            rows = plan_a(choose(read_records(os.path.join(out, "dev.jsonl.gz"))))
            engine(args.exe, args.model, args.scorer, rows, os.path.join(PROMPTS, "factual.tsv"), path,
                   SEED_BASE["a"], extra)
            info.update({"commit": git_commit(), "seconds": round(time.time() - start)})
        else:
            rows = (plan_dev() if stage == "dev" else plan_b() if stage == "b" else
                    plan_a(choose(read_records(os.path.join(out, "dev.jsonl.gz")))))
            prompts = os.path.join(PROMPTS, "open-dev.txt" if stage == "dev" else "open-test.txt")
            parts = info.setdefault("parts", {})
            for _ in engine_chunked(args.exe, args.model, args.scorer, rows, prompts, path,
                                    SEED_BASE["b" if stage == "b" else "a"], extra, parts):
                save()
            info["seconds"] = sum(p["seconds"] for p in parts.values())
        info["date"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        save()


def fetch(script):
    """The path a scripts/fetch-*.sh prints (it fetches and caches the model)."""
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", script)], capture_output=True, text=True,
                          check=True).stdout.strip()


def run_all(args):
    gemma, smollm2 = fetch("fetch-model.sh"), fetch("fetch-smollm2.sh")
    # seed set A of both generators first: B only replicates what A found
    for stages in (["dev", "a", "factual"], ["b"]):
        for name, model, scorer in (("gemma", gemma, smollm2), ("smollm2", smollm2, gemma)):
            run(argparse.Namespace(exe=args.exe, generator=name, model=model, scorer=scorer,
                                   llama_cpp=args.llama_cpp, stage=stages, threads=args.threads, force=False))
    report.main(RESULTS)


def smoke(args):
    """A short run through the whole pipeline (CTest eval_smoke): 2 prompts,
    a few settings, 6 tokens; checks that the records are complete and sane."""
    os.makedirs(args.out, exist_ok=True)
    rows = curve("D")[:2] + [scatter("D", "collision"), scatter("N", "creative"), competitor("D", "xtc", 0.5, 0.1),
                             competitor("M", "adaptive-p", 0.5, 0.9), competitor("K", "dyn", 0.4, 1)]
    lines = [line for line in open(os.path.join(PROMPTS, "open-test.txt")) if not line.startswith("#")][:2]
    prompts = os.path.join(args.out, "prompts.txt")
    with open(prompts, "w") as f:
        f.writelines(lines)
    path = os.path.join(args.out, "smoke.jsonl.gz")
    scorer = fetch("fetch-smollm2.sh")
    engine(args.exe, args.model, scorer, rows, prompts, path, 1000, ["-n", "6", "--samples", "2"])
    recs = read_records(path)
    assert len(recs) == len(rows) * 2 * 2, len(recs)
    for r in recs:
        assert len(r["tokens"]) == len(r["H"]) == len(r["KL"]) == len(r["TKL"]) == 6, r
        assert r["score_bytes"] > 0 and r["score_ll"] < 0, r
        assert all(h >= 0 for h in r["H"]) and all(k >= 0 for k in r["KL"]), r
        is_temp = ":temp@" in r["setting"]
        assert all((t is None) == is_temp for t in r["TKL"]), r
        assert all(t is None or t >= 0 for t in r["TKL"]), r
    # dynamic temperature is a per-step temperature: its distance to one is ~0
    dyn = [t for r in recs if "dyn" in r["setting"] for t in r["TKL"]]
    assert max(dyn) < 1e-3, dyn
    fact = os.path.join(args.out, "factual.jsonl.gz")
    factual_lines = [line for line in open(os.path.join(PROMPTS, "factual.tsv")) if not line.startswith("#")][:3]
    fpath = os.path.join(args.out, "factual.tsv")
    with open(fpath, "w") as f:
        f.writelines(factual_lines)
    engine(args.exe, args.model, scorer, rows, fpath, fact, 1000, ["--samples", "2"])
    for r in read_records(fact):
        assert set(r["settings"]) == {row[0] for row in rows}, r
        assert all(0.0 <= p <= 1.0 for p in r["settings"].values()), r
    print(f"eval smoke: {len(recs)} records, factual ok")
    print("1 passed, 0 failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--exe", required=True)
    r.add_argument("--generator", required=True)
    r.add_argument("--model", required=True)
    r.add_argument("--scorer", required=True)
    r.add_argument("--llama-cpp", default=LLAMA_CPP)
    r.add_argument("--stage", action="append", choices=["dev", "a", "factual", "b"])
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--force", action="store_true")
    s = sub.add_parser("smoke")
    s.add_argument("--exe", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--model", required=True)
    al = sub.add_parser("all")
    al.add_argument("--exe", required=True)
    al.add_argument("--llama-cpp", default=LLAMA_CPP)
    al.add_argument("--threads", type=int, default=2)
    sub.add_parser("analyze")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args)
    elif args.cmd == "smoke":
        smoke(args)
    elif args.cmd == "all":
        run_all(args)
    else:
        report.main(RESULTS)


if __name__ == "__main__":
    main()
