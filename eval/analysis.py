"""The analysis of EVALUATION.md, the bottom layer of eval/: the settings
and the pre-declared comparisons, the records' measures, the statistics
(distances from the temperature curves, the paired prompt bootstrap,
Holm) and the decision rule. report.py renders it; evaluate.py (the
command line) runs the engine and calls both. Standard library only."""

import gzip
import json
import random

# chain -> (base temperature, temperature sweep); EVALUATION.md "Chains and settings"
CHAINS = {
    "D": (0.8, [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2]),
    "K": (0.8, [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2]),
    "N": (0.8, [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1]),
    "M": (1.2, [0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]),
}
PRESETS = ["subtle", "creative", "adaptive", "collision", "adaptive-absorb"]
COMPARISONS = [  # (name, chain, setting, minus setting or None)
    ("C1", "D", "D:creative", None),
    ("C2", "D", "D:adaptive", None),
    ("C3", "D", "D:collision", None),
    ("C4", "D", "D:collision", "D:fixed@0.075"),
    ("C5", "K", "K:creative", None),
    ("C6", "N", "N:creative", None),
    ("C7", "M", "M:creative", None),
]
N_BOOT = 2000


def fmt(x):
    return f"{x:g}"


# ---------------------------------------------------------------- records

def read_records(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def per_prompt(records):
    """setting -> prompt -> measures of its continuations."""
    out = {}
    for r in records:
        d = out.setdefault(r["setting"], {}).setdefault(r["prompt"], {"q": [], "h": [], "kl": [], "tokens": [],
                                                                      "tkl": [], "fired": 0, "applied": 0,
                                                                      "strength": 0.0, "scattered": 0})
        d["q"].append(r["score_ll"] / max(r["score_bytes"], 1))
        d["h"].append(sum(r["H"]) / len(r["H"]))
        d["kl"].append(sum(r["KL"]) / len(r["KL"]))
        d["tokens"].append(r["tokens"])
        d["tkl"] += [x for x in r["TKL"] if x is not None]
        d["fired"] += r.get("n_fired", 0)
        d["applied"] += r.get("n_apply", 0)
        d["scattered"] += r.get("n_scattered", 0)
        d["strength"] += r.get("strength_sum", 0.0)
    return out


def mean(xs):
    return sum(xs) / len(xs)


def distinct2(seqs):
    grams = [tuple(s[i:i + 2]) for s in seqs for i in range(len(s) - 1)]
    return len(set(grams)) / len(grams)


def repeated4(seq):
    """1 at position i when the 4-gram ending at i occurred earlier in seq."""
    seen, out = set(), []
    for i in range(len(seq)):
        if i < 3:
            out.append(0)
            continue
        g = tuple(seq[i - 3:i + 1])
        out.append(1 if g in seen else 0)
        seen.add(g)
    return out


# ---------------------------------------------------------------- statistics

def interp(x, xs, ys):
    """Piecewise-linear y(x) through points sorted by x; end segments extended."""
    if x <= xs[0]:
        i = 0
    elif x >= xs[-1]:
        i = len(xs) - 2
    else:
        i = next(k for k in range(len(xs) - 1) if xs[k] <= x <= xs[k + 1])
    if xs[i + 1] == xs[i]:
        return ys[i]
    return ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])


class Analysis:
    """Distances from the temperature curves for one generator and seed set,
    with the paired prompt bootstrap."""

    def __init__(self, records, axis="h"):
        self.pp = per_prompt(records)
        self.prompts = sorted(next(iter(self.pp.values())).keys())
        self.axis = axis
        # per setting: per prompt (x, q) means
        self.xq = {}
        for s, by in self.pp.items():
            self.xq[s] = {p: (self.x_of(by[p]), mean(by[p]["q"])) for p in by}

    def x_of(self, d):
        return mean(d["h"]) if self.axis == "h" else distinct2(d["tokens"])

    def point(self, s, sample):
        xs = [self.xq[s][p][0] for p in sample]
        qs = [self.xq[s][p][1] for p in sample]
        return mean(xs), mean(qs)

    def curve(self, chain, sample):
        pts = sorted(self.point(f"{chain}:temp@{fmt(t)}", sample) for t in CHAINS[chain][1])
        return [p[0] for p in pts], [p[1] for p in pts]

    def delta(self, s, sample, curves):
        x, q = self.point(s, sample)
        xs, ys = curves[s.split(":")[0]]
        return q - interp(x, xs, ys)

    def has_chain(self, chain):
        return all(f"{chain}:temp@{fmt(t)}" in self.xq for t in CHAINS[chain][1])

    def estimates(self, sample):
        curves = {c: self.curve(c, sample) for c in CHAINS if self.has_chain(c)}
        return {s: self.delta(s, sample, curves) for s in self.xq if ":temp@" not in s and s.split(":")[0] in curves}

    def resamples(self):
        """The N_BOOT bootstrap resamples of the prompts, the same on every
        call (so the intervals of all settings and plots are paired)."""
        rng = random.Random(20261201)
        for _ in range(N_BOOT):
            yield [rng.choice(self.prompts) for _ in self.prompts]

    def bootstrap(self):
        full = self.estimates(self.prompts)
        boots = {s: [] for s in full}
        for sample in self.resamples():
            for s, d in self.estimates(sample).items():
                boots[s].append(d)
        return full, boots

    def delta_min(self, chain):
        """|Q(T_b + 0.05) - Q(T_b)| along the chain's curve, Q linear in T
        (None when the chain did not run)."""
        if not self.has_chain(chain):
            return None
        base, temps = CHAINS[chain]
        qs = [self.point(f"{chain}:temp@{fmt(t)}", self.prompts)[1] for t in temps]
        return abs(interp(base + 0.05, temps, qs) - interp(base, temps, qs))


def interval(vs):
    v = sorted(vs)
    return v[int(0.025 * len(v))], v[min(int(0.975 * len(v)), len(v) - 1)]


def p_value(vs):
    below = sum(1 for v in vs if v <= 0) / len(vs)
    above = sum(1 for v in vs if v >= 0) / len(vs)
    return max(min(1.0, 2 * min(below, above)), 1 / len(vs))


def holm(ps, alpha=0.05):
    """Which hypotheses Holm's step-down rejects, and the adjusted p-values."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adjusted, running, reject, stopped = [0.0] * len(ps), 0.0, [False] * len(ps), False
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adjusted[i] = running
        if not stopped and ps[i] <= alpha / (len(ps) - rank):
            reject[i] = True
        else:
            stopped = True
    return reject, adjusted


# ---------------------------------------------------------------- decision rule

def comparison_values(full, boots, comp):
    _, _, s, minus = comp
    if s not in full or (minus and minus not in full):
        return None, None
    if minus:
        return full[s] - full[minus], [a - b for a, b in zip(boots[s], boots[minus])]
    return full[s], boots[s]


def verdicts(a, fa, ba, fb, bb):
    """The decision rule of EVALUATION.md, for one generator."""
    rows, ps = [], []
    for comp in COMPARISONS:
        est, bs = comparison_values(fa, ba, comp)
        rows.append({"id": comp[0], "chain": comp[1], "setting": comp[2], "minus": comp[3], "delta": est,
                     "ci": interval(bs) if bs else None, "p": p_value(bs) if bs else None})
        ps.append(rows[-1]["p"] if bs else 1.0)
    reject, adjusted = holm(ps)
    for r, rej, adj, comp in zip(rows, reject, adjusted, COMPARISONS):
        r["holm_p"], r["holm_significant"] = adj, rej and r["delta"] is not None
        r["delta_min"] = a.delta_min(r["chain"])
        if fb is not None:
            est, bs = comparison_values(fb, bb, comp)
            r["b_delta"], r["b_ci"] = est, interval(bs) if bs else None
        else:
            r["b_delta"], r["b_ci"] = None, None

    def replicated(r, sign):
        return r["b_ci"] is not None and (r["b_ci"][0] > 0 if sign > 0 else r["b_ci"][1] < 0)

    chains = {}
    for chain in CHAINS:
        if not a.has_chain(chain):
            chains[chain] = "not run"
            continue
        mine = [r for r in rows if r["chain"] == chain and r["minus"] is None and r["delta"] is not None]
        up = [r for r in mine if r["holm_significant"] and r["delta"] >= r["delta_min"] and replicated(r, +1)]
        down = [r for r in mine if r["holm_significant"] and r["delta"] <= -r["delta_min"] and replicated(r, -1)]
        pending = [r for r in mine if r["holm_significant"] and abs(r["delta"]) >= r["delta_min"]
                   and r["b_ci"] is None]
        chains[chain] = ("worth using" if up else "harmful" if down else
                         "pending seed set B" if pending else "a temperature knob")
    c4 = next(r for r in rows if r["id"] == "C4")
    if c4["delta"] is None or c4["delta_min"] is None:
        claim = "not run"
    elif c4["holm_significant"] and abs(c4["delta"]) >= c4["delta_min"]:
        sign = 1 if c4["delta"] > 0 else -1
        claim = ("pending seed set B" if c4["b_ci"] is None else
                 ("supported" if sign > 0 else "contradicted") if replicated(c4, sign) else "not shown")
    else:
        claim = "not shown"
    return rows, chains, claim
