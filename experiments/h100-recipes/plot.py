#!/usr/bin/python3
"""Simulated against measured step time of NVIDIA's H100 recipes (run.sh's table.csv): one point per
row, a colour per model, circles BF16 and triangles FP8; the diagonal is a perfect prediction and the
band ±10 %. usage: plot.py TABLE.csv OUT.png"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def main(table, out):
    t = pd.read_csv(table)
    t = t[t["exit"] == 0]
    fig, ax = plt.subplots(figsize=(6.5, 6))
    for i, (model, g) in enumerate(t.groupby("model", sort=False)):
        for precision, marker in (("bf16", "o"), ("fp8", "^")):
            p = g[g.precision == precision]
            ax.scatter(p.measured_s, p.simulated_s, marker=marker, color=f"C{i}", s=28,
                       label=model if precision == "bf16" else None)
    low, high = 0.8 * min(t.measured_s.min(), t.simulated_s.min()), 1.2 * max(t.measured_s.max(), t.simulated_s.max())
    line = [low, high]
    ax.plot(line, line, color="black", linewidth=0.8)
    ax.fill_between(line, [0.9 * x for x in line], [1.1 * x for x in line], color="grey", alpha=0.15, label="±10 %")
    ax.set(xscale="log", yscale="log", xlim=line, ylim=line, xlabel="measured step time (s)",
           ylabel="pipegrid step time (s)", title="NVIDIA DGX H100 recipes: ○ BF16, △ FP8")
    mape = (t.simulated_s / t.measured_s - 1).abs().mean()
    ax.text(0.03, 0.97, f"{len(t)} rows, mean |error| {mape:.1%}", transform=ax.transAxes, va="top")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(*sys.argv[1:3])
