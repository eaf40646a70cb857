"""Smoke run of scatter-eval (CTest eval_smoke): 2 prompts of each kind, a
temperature and a scatter configuration plus its matched temperature, few
tokens. Checks that the tool runs and that its outputs are complete and sane;
the numbers themselves are the evaluation's business (EVALUATION.md).

usage: check_smoke.py SCATTER_EVAL PROMPTS_DIR OUT_DIR -m MODEL
"""

import csv
import json
import math
import os
import subprocess
import sys

exe, prompts, out, _, model = sys.argv[1:6]
os.makedirs(out, exist_ok=True)
paths = {k: os.path.join(out, f"smoke.{k}") for k in ["json", "csv", "dump.json"]}
cmd = [exe, "-m", model, "--open", os.path.join(prompts, "open.txt"), "--factual", os.path.join(prompts, "factual.tsv"),
       "--prompts", "2", "--samples", "2", "-n", "8", "--configs", "greedy,creative@0.8,match:creative@0.8",
       "--json", paths["json"], "--csv", paths["csv"], "--dump", paths["dump.json"]]
proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
print(proc.stdout)
assert proc.returncode == 0, proc.stderr

results = json.load(open(paths["json"]))["configs"]
rows = list(csv.DictReader(open(paths["csv"])))
assert [r["config"] for r in results] == ["greedy", "creative@0.8", "match:creative@0.8"], results
assert [r["config"] for r in rows] == [r["config"] for r in results]
for r in results:
    for key in ["distinct1", "distinct2", "rep4", "factual_accuracy", "fire_rate", "tok_outside_top40", "mass_outside_nucleus"]:
        assert 0.0 <= r[key] <= 1.0, (r["config"], key, r[key])
    assert math.isfinite(r["mean_logprob"]) and r["mean_logprob"] <= 0.0, r
    assert r["tokens"] == (2 if r["kind"] == "greedy" else 4) * 8, r
greedy, creative, matched = results
assert greedy["entropy"] == 0.0 and greedy["tok_outside_top40"] == 0.0
assert creative["fire_rate"] == 1.0 and abs(creative["mean_strength"] - 0.18) < 1e-6, creative
assert matched["kind"] == "matched temperature" and 0.5 <= matched["temperature"] <= 3.5, matched
assert creative["mass_outside_top40"] == 0.0, "the default chain keeps only the top 40"

dump = json.load(open(paths["dump.json"]))
assert len(dump) == 2 and set(dump[0]["series"]) == {"without scatter", "scatter", "temperature, matched entropy"}
for series in dump[0]["series"].values():
    probs = [p for _, p in series]
    assert 0 < len(probs) <= 20 and probs == sorted(probs, reverse=True) and sum(probs) <= 1.0 + 1e-6
print("eval smoke: ok")
