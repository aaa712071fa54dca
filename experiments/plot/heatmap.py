#!/usr/bin/python3
"""A heat map of one metric of a sweep over two of its axes, each cell annotated with its value; a run
that did not finish ok is a grey hatched cell naming its status, so a gap in the sweep is never mistaken
for a value.

    heatmap.py RESULTS.csv --x AXIS --y AXIS [--metric makespan] --out FILE.png [--where AXIS=VALUE ...]
"""
import argparse
import math
import sys

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import results_data  # noqa: E402

# Bright is good whatever the metric: reversed where lower is better.
LOWER_IS_BETTER = {"makespan", "first_step", "steady_step", "bubble_fraction"}
NOT_OK_COLOUR = "#cfcfcf"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", metavar="RESULTS.csv")
    p.add_argument("--x", required=True, metavar="AXIS", help="the columns, e.g. parallel.microbatches")
    p.add_argument("--y", required=True, metavar="AXIS", help="the rows, e.g. sim.schedule")
    p.add_argument("--metric", default="makespan", help=", ".join(results_data.METRICS))
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--where", nargs="+", default=[], metavar="AXIS=VALUE",
                   help="keep only these runs (needed when an axis other than --x and --y varies)")
    return p.parse_args(argv)


def draw(grid, args):
    values = np.array(grid.values, dtype=float)
    rows, cols = values.shape
    fig, ax = plt.subplots(figsize=(max(4.5, 1.0 * cols + 3.0), max(2.5, 0.55 * rows + 1.8)),
                           constrained_layout=True)
    cmap = plt.get_cmap("viridis_r" if args.metric in LOWER_IS_BETTER else "viridis").copy()
    cmap.set_bad("white")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, aspect="auto")
    finite = values[np.isfinite(values)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for i in range(rows):
        for j in range(cols):
            status, value = grid.status[i][j], values[i, j]
            if status is None:
                ax.text(j, i, "no run", ha="center", va="center", fontsize=8, color="#888888")
            elif status != "ok":
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=NOT_OK_COLOUR, edgecolor="white",
                                       hatch="xx", linewidth=0))
                ax.text(j, i, status, ha="center", va="center", fontsize=8,
                        bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none"))
            elif not math.isnan(value):
                # Dark text on the bright half of either colour map, light text on the dark half.
                bright = (value < middle) == (args.metric in LOWER_IS_BETTER)
                ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=8,
                        color="black" if bright else "white")
    ax.set_xticks(range(cols), [str(v) for v in grid.x_values])
    ax.set_yticks(range(rows), [str(v) for v in grid.y_values])
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    label = results_data.METRIC_LABELS[args.metric]
    fig.colorbar(image, ax=ax, label=label)
    title = f"{label} over {args.y} and {args.x}"
    ax.set_title(title + (f"\n{', '.join(args.where)}" if args.where else ""), fontsize=9)
    fig.savefig(args.out, dpi=130)
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    try:
        results = results_data.read_results(args.results)
        grid = results_data.grid(results, args.x, args.y, args.metric, args.where)
    except (OSError, ValueError) as e:
        sys.exit(f"heatmap.py: error: {e}")
    draw(grid, args)


if __name__ == "__main__":
    main(sys.argv[1:])
