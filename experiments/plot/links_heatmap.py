#!/usr/bin/python3
"""Links × time: each link's utilisation per --link-window window (bytes / (bandwidth × window)) from a
run's links_timeline.csv (simulate --out DIR --link-timeline), the busiest links by peak utilisation,
grouped by class. A link above 100 % carries analytic collectives' bytes on top of its flows (they do
not contend: links.csv's analytic_bytes).

    links_heatmap.py DIR --out FILE.png [--top 20 | --all] [--window SECONDS]
"""
import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402

import links_data  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run", metavar="DIR", help="a run's --out folder: links.csv, links_timeline.csv, summary.json")
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--top", type=int, default=20, help="how many of the busiest links (default 20)")
    p.add_argument("--all", action="store_true", help="every link of the platform")
    p.add_argument("--window", type=float, help="the run's --link-window, seconds (default: its summary.json's)")
    args = p.parse_args(argv)
    if args.top < 1:
        p.error("--top must be at least 1")
    return args


def draw(heat, window, out):
    rows, cols = heat.utilization.shape
    fig, ax = plt.subplots(figsize=(12, max(2.5, 0.28 * rows + 1.6)), constrained_layout=True)
    top = max(1.0, float(heat.utilization.max()) if heat.utilization.size else 1.0)
    image = ax.imshow(heat.utilization, aspect="auto", interpolation="nearest", cmap="magma", vmin=0, vmax=top,
                      extent=(0, cols * window, rows - 0.5, -0.5))
    ax.set_yticks(range(rows))
    ax.set_yticklabels(heat.names, fontsize=7)
    # A line between classes, the class named at the right.
    for i in range(rows):
        if i == 0 or heat.classes[i] != heat.classes[i - 1]:
            if i:
                ax.axhline(i - 0.5, color="white", linewidth=1.2)
            ax.annotate(heat.classes[i], xy=(1.0, i - 0.5), xycoords=("axes fraction", "data"), xytext=(4, -2),
                        textcoords="offset points", va="top", fontsize=8)
    ax.set_xlabel("time (s)")
    shown = "all" if rows == heat.total_links else f"the {rows} busiest of"
    ax.set_title(f"Link utilisation per {window * 1e3:g} ms window, {shown} {heat.total_links} links")
    fig.colorbar(image, ax=ax, label="bytes / (bandwidth × window)", pad=0.08)
    fig.savefig(out, dpi=130)


def main(argv):
    args = parse_args(argv)
    run = pathlib.Path(args.run)
    try:
        window = args.window if args.window else links_data.window_of(run)
        timeline = run / "links_timeline.csv"
        if not timeline.exists():
            raise ValueError(f"{timeline}: not found (simulate writes it with --link-timeline)")
        heat = links_data.heat(run / "links.csv", timeline, window, None if args.all else args.top)
    except (ValueError, OSError, KeyError) as error:
        sys.exit(f"links_heatmap.py: {error}")
    draw(heat, window, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
