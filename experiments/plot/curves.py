#!/usr/bin/python3
"""Bubble fraction and step time of a sweep against one axis, one line per value of another (e.g. per
schedule against micro-batches), from the runs whose status is ok.

    curves.py RESULTS.csv --x AXIS --group AXIS --out FILE.png [--where AXIS=VALUE ...]
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402

import results_data  # noqa: E402

PANELS = ["bubble_fraction", "steady_step"]
# Schedules often tie (GPipe and 1F1B have one makespan): markers and dashes keep a hidden line visible.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
DASHES = ["-", "--", "-.", ":"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", metavar="RESULTS.csv")
    p.add_argument("--x", required=True, metavar="AXIS", help="e.g. parallel.microbatches")
    p.add_argument("--group", required=True, metavar="AXIS", help="one line per value, e.g. sim.schedule")
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--where", nargs="+", default=[], metavar="AXIS=VALUE",
                   help="keep only these runs (needed when an axis other than --x and --group varies)")
    return p.parse_args(argv)


def draw(panels, x_axis, group_axis, out, note):
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), constrained_layout=True)
    for ax, (metric, curves) in zip(axes, panels):
        positions = {v: i for i, v in enumerate(curves.x_values)}  # a category axis keeps the file's order
        for i, line in enumerate(curves.lines):
            xs = line.x if curves.numeric else [positions[v] for v in line.x]
            ax.plot(xs, line.y, marker=MARKERS[i % len(MARKERS)], linestyle=DASHES[i % len(DASHES)],
                    markersize=7 - 4 * i / max(1, len(curves.lines) - 1), markerfacecolor="none",
                    linewidth=1.5, label=line.group)
        if curves.numeric:
            if curves.log_x():
                ax.set_xscale("log", base=2)
            ax.set_xticks(curves.x_values, [f"{v:g}" for v in curves.x_values])
            ax.minorticks_off()
        else:
            ax.set_xticks(range(len(curves.x_values)), curves.x_values, rotation=20, ha="right")
        ax.set_xlabel(x_axis)
        ax.set_ylabel(results_data.METRIC_LABELS[metric])
        ax.set_ylim(bottom=0)
        ax.grid(color="#dddddd", linewidth=0.6)
    axes[0].legend(title=group_axis, fontsize=8, title_fontsize=8)
    if note:
        fig.suptitle(note, fontsize=9)
    left_out = panels[0][1].left_out
    if left_out:
        text = ", ".join(f"{g} at {x_axis} {x} ({status})" for g, x, status in left_out)
        fig.text(0.01, -0.01, f"not drawn, not ok: {text}", fontsize=8, va="top", wrap=True)
    fig.savefig(out, dpi=130, bbox_inches="tight")
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    try:
        results = results_data.read_results(args.results)
        panels = [(m, results_data.curves(results, args.x, args.group, m, args.where)) for m in PANELS]
    except (OSError, ValueError) as e:
        sys.exit(f"curves.py: error: {e}")
    draw(panels, args.x, args.group, args.out, ", ".join(args.where))


if __name__ == "__main__":
    main(sys.argv[1:])
