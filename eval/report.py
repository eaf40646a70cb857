"""The report of EVALUATION.md Part 2, from the records under
eval/results/<generator>/: renders what analysis.py computes (distances
from the temperature curves with bootstrap intervals, Holm over the
pre-declared comparisons, the decision rule) as tables and SVG plots.
Writes eval/results/report.md, eval/results/summary.json and
eval/results/*.svg. Standard library only."""

import json
import math
import os
import sys

from analysis import CHAINS, PRESETS, Analysis, distinct2, interval, mean, read_records, repeated4, verdicts

COLORS = {"D": "#1f77b4", "K": "#2ca02c", "N": "#d62728", "M": "#9467bd"}


# ---------------------------------------------------------------- tables

def f3(x):
    return "—" if x is None else f"{x:+.4f}"


def ci(c):
    return "—" if c is None else f"[{c[0]:+.4f}, {c[1]:+.4f}]"


def settings_table(a, full, boots, factual, extras):
    lines = ["| setting | H (nats) | Q (nats/byte) | Δ | 95 % CI | distinct-2 | KL(π‖model) | TKL median | TKL p90 | "
             "P(answer) | fired | mean strength |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sorted(a.pp, key=lambda s: (s.split(":")[0], ":temp@" not in s, s)):
        by = a.pp[s]
        x, q = a.point(s, a.prompts)
        tkl = sorted(t for p in by for t in by[p]["tkl"])
        d2 = mean([extras["d2"][s][p] for p in a.prompts])
        kl = mean([mean(by[p]["kl"]) for p in a.prompts])
        fired = sum(by[p]["fired"] for p in by)
        applied = sum(by[p]["applied"] for p in by)
        scattered = sum(by[p]["scattered"] for p in by)
        strength = sum(by[p]["strength"] for p in by)
        chain = s.split(":")[0]
        xs = a.curve(chain, a.prompts)[0] if a.has_chain(chain) else [x, x]
        off = " (off the curve)" if ":temp@" not in s and not xs[0] <= x <= xs[-1] else ""
        lines.append("| {} | {:.3f} | {:.4f} | {} | {} | {:.3f} | {:.3f} | {} | {} | {} | {} | {} |".format(
            s, x, q, f3(full.get(s)) + off, ci(interval(boots[s])) if s in boots else "—", d2, kl,
            f"{tkl[len(tkl) // 2]:.5f}" if tkl else "—", f"{tkl[int(0.9 * len(tkl))]:.5f}" if tkl else "—",
            f"{factual[s]:.3f}" if s in factual else "—",
            f"{fired / applied:.3f}" if applied else "—", f"{strength / scattered:.3f}" if scattered else "—"))
    return lines


def comparisons_table(rows):
    lines = ["| # | comparison | Δ (seed set A) | 95 % CI | p | Holm p | significant | δ (0.05 of T) | "
             "Δ (seed set B) | 95 % CI (B) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        name = r["setting"] + (f" − {r['minus']}" if r["minus"] else " − curve")
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["id"], name, f3(r["delta"]), ci(r["ci"]), "—" if r["p"] is None else f"{r['p']:.4f}",
            f"{r['holm_p']:.4f}", "yes" if r["holm_significant"] else "no", "—" if r["delta_min"] is None else
            f"{r['delta_min']:.4f}", f3(r["b_delta"]),
            ci(r["b_ci"])))
    return lines


# ---------------------------------------------------------------- plots (SVG)

class Svg:
    def __init__(self, w, h, title):
        self.w, self.h, self.parts = w, h, []
        self.text(w / 2, 18, title, size=14, anchor="middle")

    def text(self, x, y, s, size=11, anchor="start", color="#000"):
        s = s.replace("&", "&amp;").replace("<", "&lt;")
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                          f'fill="{color}" font-family="sans-serif">{s}</text>')

    def line(self, x1, y1, x2, y2, color="#000", width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" '
                          f'stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, color, opacity=1.0):
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" '
                          f'fill="{color}" fill-opacity="{opacity}"/>')

    def circle(self, x, y, r, color, fill=True):
        f = color if fill else "none"
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{f}" stroke="{color}"/>')

    def save(self, path):
        with open(path, "w") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}">'
                    f'<rect width="100%" height="100%" fill="white"/>' + "".join(self.parts) + "</svg>\n")


class Axes:
    def __init__(self, svg, x0, y0, w, h, xr, yr, xlabel, ylabel, yticks=True):
        self.svg, self.x0, self.y0, self.w, self.h, self.xr, self.yr = svg, x0, y0, w, h, xr, yr
        svg.line(x0, y0 + h, x0 + w, y0 + h)
        svg.line(x0, y0, x0, y0 + h)
        for i in range(5):
            xv = xr[0] + (xr[1] - xr[0]) * i / 4
            yv = yr[0] + (yr[1] - yr[0]) * i / 4
            svg.text(self.x(xv), y0 + h + 14, f"{xv:.3g}", size=9, anchor="middle")
            if yticks:
                svg.text(x0 - 4, self.y(yv) + 3, f"{yv:.3g}", size=9, anchor="end")
        svg.text(x0 + w / 2, y0 + h + 28, xlabel, size=10, anchor="middle")
        svg.text(x0, y0 - 6, ylabel, size=10)

    def x(self, v):
        return self.x0 + (v - self.xr[0]) / (self.xr[1] - self.xr[0] or 1) * self.w

    def y(self, v):
        return self.y0 + self.h - (v - self.yr[0]) / (self.yr[1] - self.yr[0] or 1) * self.h


def padded(vals, pad=0.08):
    lo, hi = min(vals), max(vals)
    d = (hi - lo) or 1.0
    return lo - pad * d, hi + pad * d


def is_scatter(s):
    name = s.split(":", 1)[1]
    return name in PRESETS or name.startswith("fixed@")


def plot_curves(gen, a, boots_xq, path):
    """Quality against diversity per chain: the temperature curve (grey),
    scatter's settings (the chain's colour) and the competitors (orange),
    with 95 % bootstrap intervals on both axes. The axes span the curve and
    scatter; competitors outside them are listed under the panel."""
    svg = Svg(980, 760, f"{gen}: quality (scorer nats/byte) against diversity (entropy, nats), per chain")
    for n, chain in enumerate(CHAINS):
        names = [s for s in a.pp if s.startswith(chain + ":")]
        if not names or not a.has_chain(chain):
            continue
        pts = {s: a.point(s, a.prompts) for s in names}
        lo_hi = {s: (interval([b[0] for b in boots_xq[s]]), interval([b[1] for b in boots_xq[s]])) for s in names}
        core = [s for s in names if ":temp@" in s or is_scatter(s)]
        xr = padded([v for s in core for v in lo_hi[s][0]])
        yr = padded([v for s in core for v in lo_hi[s][1]])
        x0, y0 = 70 + (n % 2) * 470, 60 + (n // 2) * 350
        ax = Axes(svg, x0, y0, 400, 250, xr, yr, "mean entropy of the sampling distribution (nats)",
                  f"chain {chain}: Q (nats/byte)")
        curve = sorted(pts[s] for s in names if ":temp@" in s)
        for (x1, y1), (x2, y2) in zip(curve, curve[1:]):
            svg.line(ax.x(x1), ax.y(y1), ax.x(x2), ax.y(y2), "#777", 2)
        outside = []
        for s in names:
            x, y = pts[s]
            if not (xr[0] <= x <= xr[1] and yr[0] <= y <= yr[1]):
                outside.append(f"{s.split(':', 1)[1]} (H {x:.2f}, Q {y:.3f})")
                continue
            (xl, xh), (yl, yh) = lo_hi[s]
            temp = ":temp@" in s
            color = "#777" if temp else COLORS[chain] if is_scatter(s) else "#e69500"
            svg.line(ax.x(max(xl, xr[0])), ax.y(y), ax.x(min(xh, xr[1])), ax.y(y), color)
            svg.line(ax.x(x), ax.y(max(yl, yr[0])), ax.x(x), ax.y(min(yh, yr[1])), color)
            svg.circle(ax.x(x), ax.y(y), 3, color, fill=not temp)
            svg.text(ax.x(x) + 4, ax.y(y) - 4, s.split(":", 1)[1], size=8, color=color)
        if outside:
            svg.text(x0, y0 + 296, "outside the axes: " + ", ".join(outside), size=8, color="#e69500")
    svg.save(path)


def plot_forest(gen, full, boots, deltas_min, path):
    """Every setting's distance from its chain's curve with its 95 %
    interval; the grey band of a row is ±δ of its chain."""
    names = sorted((s for s in full if s in boots), key=lambda s: (s.split(":")[0], not is_scatter(s), s))
    svg = Svg(760, 60 + 18 * len(names) + 50, f"{gen}: distance from the temperature curve (Δ, nats/byte), 95 % CI")
    lo = min(min(interval(boots[s])[0] for s in names), -max(deltas_min.values()))
    hi = max(max(interval(boots[s])[1] for s in names), max(deltas_min.values()))
    ax = Axes(svg, 250, 40, 470, 18 * len(names), padded([lo, hi]), (0, len(names)), "Δ (nats/byte)", "",
              yticks=False)
    svg.line(ax.x(0), 40, ax.x(0), 40 + 18 * len(names), "#000", 1, "3,3")
    for i, s in enumerate(names):
        y = 40 + 18 * i + 9
        l, h = interval(boots[s])
        chain = s.split(":")[0]
        dm = deltas_min[chain]
        svg.rect(ax.x(-dm), y - 9, ax.x(dm) - ax.x(-dm), 18, "#cccccc", 0.5)
        svg.text(245, y + 4, s, size=10, anchor="end")
        color = COLORS[chain] if is_scatter(s) else "#e69500"
        svg.line(ax.x(l), y, ax.x(h), y, color, 2)
        svg.circle(ax.x(full[s]), y, 3.5, color)
    svg.text(250, 40 + 18 * len(names) + 42,
             "grey band: ±δ of the row's chain, the quality change of 0.05 of temperature; orange: competitors",
             size=9)
    svg.save(path)


def plot_tkl(gen, a, path):
    """Histogram of the per-step distance to temperature (log10 bins)."""
    groups = {}
    for s, by in a.pp.items():
        if s.split(":", 1)[1] in ("creative", "adaptive", "collision"):
            groups[s] = [t for p in by for t in by[p]["tkl"]]
    bins = [x / 4 for x in range(-32, 1)]  # log10 from 1e-8 to 1
    svg = Svg(980, 120 + 110 * ((len(groups) + 1) // 2), f"{gen}: per-step min over T of KL(scatter ‖ temperature T)")
    for n, (s, vals) in enumerate(sorted(groups.items())):
        counts = [0] * len(bins)
        for v in vals:
            k = int((math.log10(max(v, 1e-8)) + 8) * 4)
            counts[min(max(k, 0), len(bins) - 1)] += 1
        top = max(counts) or 1
        x0, y0 = 70 + (n % 2) * 470, 50 + (n // 2) * 110
        ax = Axes(svg, x0, y0, 400, 70, (-8, 0.25), (0, top / len(vals)),
                  "log10 nats (first bin: 1e-8 or less, exact temperature steps included)", s)
        for k, c in enumerate(counts):
            svg.rect(ax.x(bins[k]), ax.y(c / len(vals)), ax.x(bins[k] + 0.25) - ax.x(bins[k]) - 1,
                     ax.y(0) - ax.y(c / len(vals)), COLORS[s.split(":")[0]])
    svg.save(path)


def plot_repetition(gen, a, path):
    names = [s for s in a.pp if s.startswith("D:")]
    series = {}
    for s in names:
        reps = [repeated4(t) for p in a.pp[s] for t in a.pp[s][p]["tokens"]]
        series[s] = [mean([r[i] for r in reps]) for i in range(len(reps[0]))]
    shown = [s for s in sorted(names) if ":temp@" in s and s.endswith(("0.6", "0.8", "1.2"))]
    shown += [s for s in sorted(names) if s.split(":", 1)[1] in ("creative", "adaptive-absorb", "collision")]
    top = max(max(series[s]) for s in shown) or 1.0
    svg = Svg(760, 420, f"{gen}: chain D, share of continuations repeating an earlier 4-gram at each position")
    ax = Axes(svg, 70, 50, 480, 300, (0, len(series[shown[0]]) - 1), (0, top), "token position",
              "repeated-4-gram rate")
    palette = ["#444", "#888", "#bbb", "#1f77b4", "#2ca02c", "#d62728"]
    for i, s in enumerate(shown):
        c = palette[i % len(palette)]
        v = series[s]
        for k in range(len(v) - 1):
            svg.line(ax.x(k), ax.y(v[k]), ax.x(k + 1), ax.y(v[k + 1]), c, 1.5)
        svg.text(560, 60 + 14 * i, s, size=10, color=c)
    svg.save(path)


# ---------------------------------------------------------------- main

def boots_points(a):
    """Per setting, the bootstrap resamples of (mean H, mean Q)."""
    out = {s: [] for s in a.xq}
    for sample in a.resamples():
        for s in a.xq:
            out[s].append(a.point(s, sample))
    return out


def main(results):
    report = ["# Evaluation results (generated by `eval/evaluate.py analyze`; do not edit)", ""]
    summary = {}
    for gen in sorted(os.listdir(results)):
        d = os.path.join(results, gen)
        if not os.path.isfile(os.path.join(d, "a.jsonl.gz")):
            continue
        stamp = json.load(open(os.path.join(d, "stamp.json")))
        recs_a = read_records(os.path.join(d, "a.jsonl.gz"))
        a = Analysis(recs_a)
        full, boots = a.bootstrap()
        b_path = os.path.join(d, "b.jsonl.gz")
        fb = bb = None
        if os.path.isfile(b_path):
            fb, bb = Analysis(read_records(b_path)).bootstrap()
        rows, chains, claim = verdicts(a, full, boots, fb, bb)
        factual = {}
        f_path = os.path.join(d, "factual.jsonl.gz")
        if os.path.isfile(f_path):
            fr = read_records(f_path)
            for s in fr[0]["settings"]:
                factual[s] = mean([r["settings"][s] for r in fr])
            factual["(model)"] = mean([r["model_p"] for r in fr])
        d2 = {s: {p: distinct2(a.pp[s][p]["tokens"]) for p in a.pp[s]} for s in a.pp}
        a_d2 = Analysis(recs_a, axis="d2")
        full_d2, boots_d2 = a_d2.bootstrap()
        deltas_min = {c: a.delta_min(c) for c in CHAINS if a.has_chain(c)}
        report += [f"## {gen}", "", "Stamp: `" + json.dumps(stamp) + "`", "",
                   "### Pre-declared comparisons (seed set A; B where run)", ""]
        report += comparisons_table(rows)
        report += ["", "### Verdicts", ""]
        report += [f"- chain {c}: **{v}**" for c, v in chains.items()]
        report += [f"- C4 (collision beats a constant blur of the same mean strength): **{claim}**", ""]
        report += ["### Every setting (seed set A, 48 test prompts × 4 continuations × 40 tokens)", ""]
        report += settings_table(a, full, boots, factual, {"d2": d2})
        if factual:
            report += ["", f"Model's own mean probability of the answer token: {factual['(model)']:.3f}."]
        report += ["", "### Secondary: distances on the distinct-2 axis (Δ in Q at equal distinct-2)", "",
                   "| setting | Δ | 95 % CI |", "|---|---|---|"]
        report += [f"| {s} | {f3(full_d2[s])} | {ci(interval(boots_d2[s]))} |" for s in sorted(full_d2)]
        report.append("")
        plot_curves(gen, a, boots_points(a), os.path.join(results, f"{gen}-curves.svg"))
        plot_forest(gen, full, boots, deltas_min, os.path.join(results, f"{gen}-forest.svg"))
        plot_tkl(gen, a, os.path.join(results, f"{gen}-tkl.svg"))
        plot_repetition(gen, a, os.path.join(results, f"{gen}-repetition.svg"))
        summary[gen] = {"stamp": stamp, "comparisons": rows, "verdicts": chains, "c4": claim,
                        "delta_min": deltas_min,
                        "settings": {s: {"delta": full[s], "ci": interval(boots[s])} for s in full}}
    with open(os.path.join(results, "report.md"), "w") as f:
        f.write("\n".join(report) + "\n")
    with open(os.path.join(results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(report))


if __name__ == "__main__":
    main(sys.argv[1])
