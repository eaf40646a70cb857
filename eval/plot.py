#!/usr/bin/env python3
"""plot.py RESULTS_DIR: the pictures of EVALUATION.md from scatter-eval's
outputs in RESULTS_DIR (results.csv, distributions.json), as SVG, with the
standard library only:

  distributions-PRESET.svg  top-20 next-token probabilities at the first step
                            of each dumped prompt: the default chain without
                            scatter, with the preset, and temperature alone at
                            the matched entropy;
  diversity-vs-tail.svg     distinct-2 against the probability mass the
                            sampling distribution put outside the model's
                            top-p 0.95 nucleus, for every configuration;
  diversity-vs-coherence.svg  distinct-2 against the mean log-probability of
                            the generated tokens under the unmodified model;
  table.md                  the results as a Markdown table.
"""
import csv
import json
import os
import sys
from xml.sax.saxutils import escape

COLORS = {"without scatter": "#7f7f7f", "scatter": "#d62728", "temperature, matched entropy": "#1f77b4"}
KIND_COLORS = {"greedy": "#000000", "temperature": "#1f77b4", "temperature (no truncation)": "#9467bd",
               "scatter": "#d62728", "matched temperature": "#17becf", "scatter (no truncation)": "#ff7f0e"}


def svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def distributions(entries, out_dir):
    by_config = {}
    for e in entries:
        by_config.setdefault(e["config"], []).append(e)
    for config, group in by_config.items():
        panel_h, w, left, top = 230, 900, 60, 30
        body = [f'<text x="{left}" y="18" font-size="14">{escape(config)}: top-20 next-token probabilities '
                f'(matched temperature {group[0]["matched_temp"]:.3f})</text>']
        for gi, e in enumerate(group):
            y0 = top + gi * panel_h
            series = e["series"]
            pmax = max(p for s in series.values() for _, p in s) or 1.0
            base = y0 + panel_h - 70
            body.append(f'<text x="{left}" y="{y0 + 16}">{escape(e["prompt"])} …</text>')
            body.append(f'<line x1="{left}" y1="{base}" x2="{w - 20}" y2="{base}" stroke="black"/>')
            n = max(len(s) for s in series.values())
            slot = (w - left - 20) / max(n, 1)
            bar = slot / (len(series) + 1)
            for si, (name, values) in enumerate(series.items()):
                for i, (_, p) in enumerate(values):
                    h = (p / pmax) * (panel_h - 100)
                    x = left + i * slot + si * bar
                    body.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                                f'fill="{COLORS.get(name, "#333")}"><title>{escape(name)}: {p:.4f}</title></rect>')
            for i, (token, _) in enumerate(series["without scatter"]):
                x = left + i * slot + slot / 2
                body.append(f'<text x="{x:.1f}" y="{base + 12}" text-anchor="end" '
                            f'transform="rotate(-45 {x:.1f} {base + 12})">{escape(repr(token)[1:-1])}</text>')
            body.append(f'<text x="{left - 8}" y="{base - (panel_h - 100)}" text-anchor="end">{pmax:.2f}</text>')
        for si, name in enumerate(COLORS):
            body.append(f'<rect x="{left + si * 230}" y="{top + len(group) * panel_h - 10}" width="12" height="12" '
                        f'fill="{COLORS[name]}"/><text x="{left + si * 230 + 16}" '
                        f'y="{top + len(group) * panel_h}">{escape(name)}</text>')
        name = config.replace("match:", "").split("@")[0]
        with open(os.path.join(out_dir, f"distributions-{name}.svg"), "w") as f:
            f.write(svg(w, top + len(group) * panel_h + 20, body))


def scatter_plot(rows, xkey, xlabel, title, path):
    """distinct-2 against rows[xkey]; points numbered, the numbers listed on the right."""
    w, h, m, legend = 980, 520, 70, 260
    xs = [float(r[xkey]) for r in rows]
    ys = [float(r["distinct2"]) for r in rows]
    xa, xb = min(xs), max(xs)
    pad = (xb - xa) * 0.08 or 0.01
    xa, xb = xa - pad, xb + pad
    y0, y1 = min(ys) - 0.03, max(ys) + 0.03
    right = w - legend

    def px(x):
        return m + (x - xa) / (xb - xa) * (right - 2 * m)

    def py(y):
        return h - m - (y - y0) / (y1 - y0) * (h - 2 * m)

    body = [f'<text x="{m}" y="24" font-size="14">{escape(title)}</text>',
            f'<line x1="{m}" y1="{h - m}" x2="{right - m}" y2="{h - m}" stroke="black"/>',
            f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="black"/>',
            f'<text x="{(right) / 2}" y="{h - 25}" text-anchor="middle">{escape(xlabel)}</text>',
            f'<text x="18" y="{h / 2}" text-anchor="middle" transform="rotate(-90 18 {h / 2})">distinct-2 across '
            f'continuations</text>']
    for i in range(5):
        xv, yv = xa + (xb - xa) * i / 4, y0 + (y1 - y0) * i / 4
        body.append(f'<text x="{px(xv):.1f}" y="{h - m + 16}" text-anchor="middle">{xv:.3f}</text>')
        body.append(f'<text x="{m - 6}" y="{py(yv) + 4:.1f}" text-anchor="end">{yv:.2f}</text>')
    for n, (r, x, y) in enumerate(zip(rows, xs, ys), 1):
        color = KIND_COLORS.get(r["kind"], "#333")
        body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="5" fill="{color}" fill-opacity="0.8"/>')
        body.append(f'<text x="{px(x) + 6:.1f}" y="{py(y) - 5:.1f}" fill="{color}" font-size="9">{n}</text>')
        body.append(f'<text x="{right + 10}" y="{m + n * 16}" fill="{color}">{n}. {escape(r["config"])} '
                    f'(T {float(r["temperature"]):.2f})</text>')
    with open(path, "w") as f:
        f.write(svg(w, h, body))


def table(rows, path):
    """The results as a Markdown table (copied into EVALUATION.md)."""
    cols = [("config", "config", "{}"), ("T", "temperature", "{:.2f}"), ("distinct-1", "distinct1", "{:.3f}"),
            ("distinct-2", "distinct2", "{:.3f}"), ("rep-4", "rep4", "{:.3f}"), ("log p", "mean_logprob", "{:.3f}"),
            ("H", "entropy", "{:.3f}"), ("tok ∉ top40", "tok_outside_top40", "{:.4f}"),
            ("tok ∉ nucleus", "tok_outside_nucleus", "{:.4f}"), ("mass ∉ top40", "mass_outside_top40", "{:.4f}"),
            ("mass ∉ nucleus", "mass_outside_nucleus", "{:.4f}"), ("factual", "factual_accuracy", "{:.3f}"),
            ("fire", "fire_rate", "{:.3f}"), ("strength", "mean_strength", "{:.3f}")]
    lines = ["| " + " | ".join(c[0] for c in cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [fmt.format(r[key] if key == "config" else float(r[key])) for _, key, fmt in cols]
        lines.append("| " + " | ".join(cells) + " |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(results_dir):
    with open(os.path.join(results_dir, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    scatter_plot(rows, "mass_outside_nucleus", "probability mass outside the model's top-p 0.95 nucleus (mean per step)",
                 "Diversity against tail leakage, every configuration", os.path.join(results_dir, "diversity-vs-tail.svg"))
    scatter_plot(rows, "mean_logprob", "mean log-probability of the generated tokens under the unmodified model",
                 "Diversity against coherence, every configuration",
                 os.path.join(results_dir, "diversity-vs-coherence.svg"))
    table(rows, os.path.join(results_dir, "table.md"))
    with open(os.path.join(results_dir, "distributions.json")) as f:
        distributions(json.load(f), results_dir)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
