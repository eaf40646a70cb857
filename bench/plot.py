#!/usr/bin/env python3
"""plot.py RESULTS.csv OUT.svg: ns per apply against the number of
candidates (the unsorted Zipf rows) for scatter, llama.cpp's top_k and the
one-pass floor, as a log-log SVG. Standard library only."""
import csv
import math
import sys

SERIES = [
    ("scatter creative", "#d62728"),
    ("llama top_k(64)", "#1f77b4"),
    ("floor: one read pass", "#555555"),
]


def main(src, out):
    points = {name: [] for name, _ in SERIES}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            if row["sampler"] in points and row["input"].startswith("zipf") and "unsorted" in row["input"]:
                points[row["sampler"]].append((int(row["n"]), float(row["median_ns"])))
    xs = [n for pts in points.values() for n, _ in pts]
    ys = [t for pts in points.values() for _, t in pts]
    x0, x1 = math.log10(min(xs)) - 0.1, math.log10(max(xs)) + 0.1
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    w, h, m = 640, 400, 70

    def px(n):
        return m + (math.log10(n) - x0) / (x1 - x0) * (w - 2 * m)

    def py(t):
        return h - m - (math.log10(t) - y0) / (y1 - y0) * (h - 2 * m)

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="24" text-anchor="middle" font-size="15">median ns per apply, unsorted Zipf rows</text>',
           f'<line x1="{m}" y1="{h - m}" x2="{w - m}" y2="{h - m}" stroke="black"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 25}" text-anchor="middle">candidates (log scale)</text>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        svg.append(f'<line x1="{m}" y1="{y}" x2="{w - m}" y2="{y}" stroke="#ddd"/>')
        svg.append(f'<text x="{m - 6}" y="{y + 4}" text-anchor="end">1e{e}</text>')
    for n in sorted(set(xs)):
        svg.append(f'<text x="{px(n)}" y="{h - m + 16}" text-anchor="middle">{n}</text>')
    for i, (name, color) in enumerate(SERIES):
        pts = sorted(points[name])
        path = " ".join(f"{px(n):.1f},{py(t):.1f}" for n, t in pts)
        svg.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for n, t in pts:
            svg.append(f'<circle cx="{px(n):.1f}" cy="{py(t):.1f}" r="3" fill="{color}"/>')
        svg.append(f'<text x="{m + 10}" y="{m + 16 * i}" fill="{color}">{name}</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
