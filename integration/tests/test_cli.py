"""The --scatter-* flags of the patched llama-completion and llama-cli, on the
real model: output, seeds, defaults, overrides, bad values and the help text."""

import os
import re
import subprocess

from tools import (DEFAULT_FIELDS, FIELDS, PRESETS, PROMPTS, RANGES, RANK_PRESERVING, args,
                   chain_line, check, completion, run_tests)

BIN, MODEL = args()

# The default chain of this llama.cpp without scatter: what a user gets by
# removing `scatter` from --samplers.
WITHOUT_SCATTER = "penalties;dry;top_n_sigma;top_k;typ_p;top_p;min_p;xtc;temperature"
SAMPLED = ["--temp", "1.0"]


def flag(name):
    return "--scatter-" + name.replace("_", "-")


def shown(name, value):
    """How the 'sampler params' block shows a field's value."""
    text = ("true" if value else "false") if name not in RANGES else \
        f"{value:.3f}" if isinstance(value, float) else str(value)
    return f"scatter_{name} = {text}"


def inside(name):
    """A value inside a number field's range and not its default: 3/8 of the way up (of at most 100
    for an integer)."""
    lo, hi = RANGES[name]
    for part in (3, 5):
        value = lo + (min(hi, 100) - lo) * part // 8 if isinstance(hi, int) else lo + (hi - lo) * part / 8
        if value != DEFAULT_FIELDS["scatter_" + name]:
            return value
    raise AssertionError(f"no test value for {name}")


def params_text(log):
    m = re.search(r"sampler params: \n(.*?)\n[^\n]*sampler chain:", log, re.S)
    check(m, "no 'sampler params:' block in the log")
    return m.group(1)


def greedy_is_untouched():
    for prompt in PROMPTS:
        base, _ = completion(BIN, MODEL, prompt, ["--temp", "0"])
        check(base.strip(), f"greedy produced no text for {prompt!r}")
        for preset in RANK_PRESERVING:
            text, log = completion(BIN, MODEL, prompt, ["--temp", "0", "--scatter-preset", preset])
            check("-> scatter ->" in chain_line(log), f"{preset}: scatter not active in the chain")
            check(text == base, f"greedy text changed by preset {preset} on {prompt!r}:\n{base!r}\n{text!r}")


def same_seed_same_text_other_seed_other_text():
    prompt = PROMPTS[0]
    for preset in ["creative", "collision"]:
        runs = {}
        for seed in [7, 7, 8, 9]:
            text, _ = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", str(seed), "--scatter-preset", preset], n_predict=48)
            runs.setdefault(seed, []).append(text)
        check(runs[7][0] == runs[7][1], f"{preset}: seed 7 gave two different texts")
        check(len({runs[7][0], runs[8][0], runs[9][0]}) == 3, f"{preset}: seeds 7, 8, 9 did not give three different texts")


def defaults_are_off():
    for prompt in PROMPTS[:2]:
        on, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "11"], n_predict=48)
        check("-> ?scatter ->" in chain_line(log), f"default chain should hold the no-op ?scatter: {chain_line(log)}")
        off, log_off = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "11", "--samplers", WITHOUT_SCATTER], n_predict=48)
        check("scatter" not in chain_line(log_off), "scatter still in the chain after removing it from --samplers")
        check(on == off, f"default scatter flags changed the text:\n{on!r}\n{off!r}")
        seq, _ = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "11", "--sampler-seq", "edskypmxt"], n_predict=48)
        check(seq == off, "--sampler-seq without r differs from --samplers without scatter")


def flags_reach_the_sampler():
    prompt = PROMPTS[0]
    base, _ = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "5"], n_predict=64)
    text, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "5", "--scatter-strength", "0.3"], n_predict=64)
    check(text != base, "--scatter-strength 0.3 did not change the sampled text")
    chain = chain_line(log)
    check(re.search(r"xtc -> scatter -> \??temp", chain), f"scatter not between xtc and temperature: {chain}")
    check("scatter_strength = 0.300" in params_text(log), "strength 0.3 not shown in the sampler params")
    env_text, _ = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "5"], n_predict=64,
                             env={"LLAMA_ARG_SCATTER_STRENGTH": "0.3"})
    check(env_text == text, "LLAMA_ARG_SCATTER_STRENGTH=0.3 differs from --scatter-strength 0.3")

    every_flag = {name: inside(name) for name in FIELDS if name in RANGES}
    argv = [flag(name) for name in FIELDS if name not in RANGES]
    for name, value in every_flag.items():
        argv += [flag(name), str(value)]
    _, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "5", *argv], n_predict=4)
    params = params_text(log)
    for name in FIELDS:
        expected = shown(name, every_flag.get(name, True))
        check(expected in params, f"{flag(name)}: '{expected}' not in the sampler params:\n{params}")

    # A preset sets every value; flags after it override it.
    _, log = completion(BIN, MODEL, prompt, ["--scatter-preset", "adaptive-absorb", "--scatter-strength", "0.25"], n_predict=1)
    preset_params = params_text(log)
    for expected in ["scatter_strength = 0.250", "scatter_adaptive = true", "scatter_absorption = 0.060", "scatter_radius = 2.500"]:
        check(expected in preset_params, f"preset + override: '{expected}' not in:\n{preset_params}")
    _, log = completion(BIN, MODEL, prompt, ["--scatter-preset", "adaptive", "--no-scatter-adaptive"], n_predict=1)
    check("scatter_adaptive = false" in params_text(log), "--no-scatter-adaptive after a preset did not turn adaptive off")


def bad_values_are_refused():
    cases = [(["--scatter-strength", "nan"], "--scatter-strength"), (["--scatter-k", "12abc"], "--scatter-k"),
             (["--scatter-preset", "loud"], "--scatter-preset"), (["--scatter-k", "64.5"], "--scatter-k"),
             (["--scatter-steps", ""], "--scatter-steps")]
    for name, (lo, hi) in RANGES.items():
        if name in FIELDS:
            above = hi + 1 if isinstance(hi, int) else hi * 2
            cases += [([flag(name), str(lo - 1)], flag(name)), ([flag(name), str(above)], flag(name))]
    for argv, named in cases:
        cmd = [os.path.join(BIN, "llama-completion"), "-m", MODEL, "-no-cnv", "-p", "x", "-n", "1", *argv]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        check(proc.returncode != 0, f"{argv} was accepted")
        check(f'"{named}"' in proc.stderr, f"{argv}: the error does not name {named}:\n{proc.stderr[-800:]}")
    # The server's rule: an integral number is an integer (64.0 is 64), whatever its spelling.
    _, log = completion(BIN, MODEL, PROMPTS[0], ["--scatter-k", "48.0", "--scatter-steps", "2e0"], n_predict=1)
    check("scatter_k = 48," in params_text(log) and "scatter_steps = 2," in params_text(log),
          f"--scatter-k 48.0 --scatter-steps 2e0:\n{params_text(log)}")
    env = dict(os.environ, LLAMA_ARG_SCATTER_RADIUS="99")
    proc = subprocess.run([os.path.join(BIN, "llama-completion"), "-m", MODEL, "-no-cnv", "-p", "x", "-n", "1"],
                          capture_output=True, text=True, timeout=120, env=env)
    check(proc.returncode != 0 and "LLAMA_ARG_SCATTER_RADIUS" in proc.stderr, "LLAMA_ARG_SCATTER_RADIUS=99 was accepted")


def help_lists_flags_and_default_chain():
    for tool in ["llama-completion", "llama-cli", "llama-server"]:
        proc = subprocess.run([os.path.join(BIN, tool), "--help"], capture_output=True, text=True, timeout=60)
        out = proc.stdout + proc.stderr
        for listed in ["--scatter-preset", *map(flag, FIELDS), *("LLAMA_ARG_SCATTER_" + name.upper() for name in FIELDS)]:
            check(listed in out, f"{tool} --help does not list {listed}")
        check("edskypmxrt" in out, f"{tool} --help: default --sampler-seq is not edskypmxrt")
        check("xtc;scatter;temperature" in out, f"{tool} --help: default --samplers lacks xtc;scatter;temperature")
        for preset in PRESETS:
            check(preset in out, f"{tool} --help does not name preset {preset}")


def backend_sampling_keeps_the_chain_on_the_device():
    # "+" marks a sampler that runs on the backend, "-" one that sent the chain back to the CPU from
    # there on. A disabled scatter is invisible; an active one runs there, except with absorption.
    bs = ["--temp", "0.8", "--seed", "3", "-bs"]
    _, log = completion(BIN, MODEL, PROMPTS[0], bs, n_predict=4)
    check("-> ?scatter -> +temp-ext -> +dist" in chain_line(log), f"-bs without scatter: {chain_line(log)}")
    for preset in ["creative", "adaptive", "collision"]:
        texts = set()
        for _ in range(2):
            text, log = completion(BIN, MODEL, PROMPTS[0], [*bs, "--scatter-preset", preset], n_predict=24)
            check("+min-p -> ?xtc -> +scatter -> +temp-ext -> +dist" in chain_line(log), f"-bs {preset}: {chain_line(log)}")
            texts.add(text)
        check(len(texts) == 1, f"-bs {preset}: the same seed gave two texts")
    _, log = completion(BIN, MODEL, PROMPTS[0], [*bs, "--scatter-preset", "adaptive-absorb"], n_predict=4)
    check("+min-p -> ?xtc -> -scatter -> temp-ext -> dist" in chain_line(log), f"-bs adaptive-absorb: {chain_line(log)}")


def sampler_lists_without_scatter_get_it():
    prompt = PROMPTS[0]
    explicit, _ = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "6", "--scatter-preset", "creative",
                                                  "--samplers", "top_k;top_p;min_p;scatter;temperature"], n_predict=32)
    for lacking in [["--samplers", "top_k;top_p;min_p;temperature"], ["--sampler-seq", "kpmt"]]:
        text, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--seed", "6", "--scatter-preset", "creative", *lacking], n_predict=32)
        check(re.search(r"min-p -> scatter -> \??temp", chain_line(log)), f"{lacking}: {chain_line(log)}")
        check("scatter is enabled but the sampler list has none" in log, f"{lacking}: no warning")
        check(text == explicit, f"{lacking}: the inserted scatter gave another text than the one named in the list")
    # Scatter off: nothing is inserted and nothing is said.
    _, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--samplers", "top_k;temperature"], n_predict=1)
    check("scatter" not in chain_line(log) and "scatter is enabled" not in log, f"scatter off: {chain_line(log)}")
    _, log = completion(BIN, MODEL, prompt, [*SAMPLED, "--samplers", "top_k;top_p", "--scatter-strength", "0.2"], n_predict=1)
    check("top-p -> scatter -> dist" in chain_line(log), f"no temperature in the list: {chain_line(log)}")


run_tests([
    ("help lists every flag, preset and the default chain", help_lists_flags_and_default_chain),
    ("bad values are refused, naming the flag", bad_values_are_refused),
    ("greedy text is untouched by every rank-preserving preset", greedy_is_untouched),
    ("same seed same text, other seed other text", same_seed_same_text_other_seed_other_text),
    ("every flag at its default is off", defaults_are_off),
    ("flags reach the sampler", flags_reach_the_sampler),
    ("backend sampling keeps the chain on the device", backend_sampling_keeps_the_chain_on_the_device),
    ("sampler lists without scatter get it", sampler_lists_without_scatter_get_it),
])
