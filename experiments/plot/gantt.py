#!/usr/bin/python3
"""Gantt charts of `pipegrid simulate` traces: one panel per trace.csv, stacked on one time axis so that
equal bubbles look equal across schedules; one row per pipeline rank (or per GPU), computations as bars
coloured by kind, communication as thin lanes under the row, idle time shaded so the bubble shows.

    gantt.py TRACE.csv [TRACE.csv ...] --out FILE.png [--titles T ...] [--rows pipeline|gpu] [--width IN]
"""
import argparse
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

import trace_data  # noqa: E402

COMPUTE_COLOURS = {"F": "#3b75af", "B": "#2e9e4f", "I": "#98d68f", "W": "#8e6bbf", "dense": "#b8a23a",
                   "optimizer": "#7f7f7f"}
EXPERTS_HATCH = "////"  # MoE expert phases: their F/B colour, hatched; attention phases plain
COMM_COLOURS = {
    "p2p": "#222222",
    "tp-allreduce": "#f28e2b", "dp-allreduce": "#d62728", "expert-dp-allreduce": "#e377c2",
    "embedding-allreduce": "#8c564b", "stage-copy-allreduce": "#c9a227",
    "dp-reduce-scatter": "#d62728", "dp-all-gather": "#ff9896",
    "dispatch": "#17becf", "combine": "#0f8a96", "combine-grad": "#76d7e0", "dispatch-grad": "#08555c",
}
BUBBLE_COLOUR = "#f7c4c4"  # idle before the last computation ends: the pipeline's bubble
TAIL_COLOUR = "#dddddd"    # idle after it: waiting for gradient all-reduces

ROW_INCHES = 0.5
TITLE_INCHES, TITLE_LINE_INCHES, TITLE_POINTS = 0.3, 0.17, 9
GAP_INCHES, LEGEND_INCHES, AXIS_INCHES = 0.25, 0.55, 0.5
RIGHT_INCHES = 0.85  # room for each row's idle seconds
COMPUTE_TOP, COMPUTE_HEIGHT = -0.42, 0.56  # in row units, y growing downwards from the row's centre
COMM_TOP, COMM_HEIGHT = 0.18, 0.26


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("traces", nargs="+", metavar="TRACE.csv")
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--titles", nargs="+", metavar="T", help="one per trace (default: the schedule name)")
    p.add_argument("--rows", choices=["pipeline", "gpu"], default="pipeline")
    p.add_argument("--width", type=float, default=14.0, metavar="INCHES")
    args = p.parse_args(argv)
    if args.titles and len(args.titles) != len(args.traces):
        p.error(f"--titles: {len(args.titles)} titles for {len(args.traces)} traces")
    return args


class Panel:
    """One trace's data, computed before drawing because the figure's size depends on every panel."""

    def __init__(self, path, title, mode):
        self.trace = trace_data.read_trace(path)
        self.title = title
        self.rows = trace_data.select_rows(self.trace, mode)
        self.timing = trace_data.timing(self.trace)
        t = self.timing
        self.idle = [trace_data.row_idle(self.trace, r.gpu, t.schedule_end, t.makespan) for r in self.rows]
        self.share = trace_data.idle_share(self.idle, t.makespan)
        self.compute = [trace_data.row_compute(self.trace, r.gpu) for r in self.rows]
        self.comm = [trace_data.row_comm(self.trace, r.gpu) for r in self.rows]
        present = set().union(*(set(c.comm_class) for c in self.comm))
        self.comm_lanes = [c for c in trace_data.COMM_CLASSES if c in present]

    def heading(self, characters):
        """The title, wrapped to `characters` a line."""
        t, s = self.timing, self.share
        text = f"{self.title}: step {t.makespan:.3f} s, idle {s.total:.1%} of GPU time"
        if s.after_compute > 0:
            text += (f": {s.in_schedule:.1%} before the computation ends at {t.schedule_end:.3f} s, "
                     f"{s.after_compute:.1%} after")
        return textwrap.wrap(text, characters)


def draw_row(ax, panel, y, points_per_second, used):
    """Row y of the panel: idle tints, computations (one collection per kind and lane, so that long traces
    stay quick), micro-batch labels, then the communication lanes."""
    idle = panel.idle[y]
    for gaps, colour in ((idle.in_schedule, BUBBLE_COLOUR), (idle.after_compute, TAIL_COLOUR)):
        ax.broken_barh([(a, b - a) for a, b in gaps], (y + COMPUTE_TOP, COMPUTE_HEIGHT), facecolors=colour,
                       linewidth=0, zorder=1)
    used["bubble"] |= bool(idle.in_schedule)
    used["tail"] |= bool(idle.after_compute)
    compute = panel.compute[y]
    for (base, phase, lane, lanes), bars in compute.groupby(["base", "phase", "lane", "lanes"], dropna=False):
        phase = None if phase != phase else phase  # groupby gives NaN for None
        lane_height = COMPUTE_HEIGHT / lanes
        ax.broken_barh(list(zip(bars.start, bars.end - bars.start)),
                       (y + COMPUTE_TOP + lane * lane_height, lane_height), facecolors=COMPUTE_COLOURS[base],
                       edgecolor="white", linewidth=0.4, hatch=EXPERTS_HATCH if phase == "experts" else None,
                       zorder=2)
        used["compute"].add((base, phase))
    for a in compute[compute.microbatch >= 0].itertuples():
        label, size = str(a.microbatch), 7 if a.lanes == 1 else 6
        lane_height = COMPUTE_HEIGHT / a.lanes
        wide = (a.end - a.start) * points_per_second >= 0.62 * size * len(label) + 5
        tall = lane_height * ROW_INCHES * 72 >= size + 1
        if wide and tall:
            # On hatched bars the label sits on a patch of the bar's colour, to stay legible.
            box = dict(boxstyle="square,pad=0.05", fc=COMPUTE_COLOURS[a.base], ec="none") \
                if a.phase == "experts" else None
            ax.text((a.start + a.end) / 2, y + COMPUTE_TOP + (a.lane + 0.5) * lane_height, label, ha="center",
                    va="center", fontsize=size, color="black" if a.base in ("I", "dense") else "white",
                    bbox=box, zorder=3)
    lane_height = COMM_HEIGHT / max(1, len(panel.comm_lanes))
    for (comm_class, kind), bars in panel.comm[y].groupby(["comm_class", "kind"]):
        top = y + COMM_TOP + panel.comm_lanes.index(comm_class) * lane_height
        ax.broken_barh(list(zip(bars.start, bars.end - bars.start)), (top, lane_height),
                       facecolors=COMM_COLOURS[kind], linewidth=0, zorder=2)
        used["comm"].add(kind)


def legend_handles(used):
    """Two rows, each group (compute, idle, communication) starting a column of its own."""
    compute = [Patch(facecolor=COMPUTE_COLOURS[base], edgecolor="white",
                     hatch=EXPERTS_HATCH if phase == "experts" else None,
                     label=base if phase is None else f"{base} {phase}")
               for base in COMPUTE_COLOURS for phase in (None, "attention", "experts")
               if (base, phase) in used["compute"]]
    idle = ([Patch(facecolor=BUBBLE_COLOUR, label="idle (bubble)")] if used["bubble"] else []) + \
           ([Patch(facecolor=TAIL_COLOUR, label="idle after the last computation")] if used["tail"] else [])
    comm = [Patch(facecolor=colour, label=kind) for kind, colour in COMM_COLOURS.items() if kind in used["comm"]]
    handles = []
    for group in (compute, idle, comm):
        handles += group + [Patch(facecolor="none", edgecolor="none", label="")] * (len(group) % 2)
    return handles


def draw(panels, out, width):
    left = 2.3 if any("pp" in r.label for p in panels for r in p.rows) else 0.8
    axes_width = width - left - RIGHT_INCHES
    headings = [p.heading(int(axes_width * 72 / (0.55 * TITLE_POINTS))) for p in panels]
    titles = [TITLE_INCHES + TITLE_LINE_INCHES * (len(h) - 1) for h in headings]
    heights = [t + ROW_INCHES * len(p.rows) for t, p in zip(titles, panels)]
    height = LEGEND_INCHES + sum(heights) + GAP_INCHES * (len(panels) - 1) + AXIS_INCHES
    fig = plt.figure(figsize=(width, height))
    end = max(p.timing.makespan for p in panels) * 1.005
    points_per_second = axes_width * 72 / end
    used = {"compute": set(), "comm": set(), "bubble": False, "tail": False}
    top, first, axes = height - LEGEND_INCHES, None, []
    for panel, heading, title, h in zip(panels, headings, titles, heights):
        top -= title
        rows_height = h - title
        ax = fig.add_axes([left / width, (top - rows_height) / height, axes_width / width, rows_height / height],
                          sharex=first)
        first = first or ax
        axes.append(ax)
        for y in range(len(panel.rows)):
            draw_row(ax, panel, y, points_per_second, used)
        ax.set_ylim(len(panel.rows) - 0.5, -0.5)
        ax.set_yticks(range(len(panel.rows)), [r.label for r in panel.rows], fontsize=8)
        ax.tick_params(axis="y", length=0)
        beside = blended_transform_factory(ax.transAxes, ax.transData)
        for i, idle in enumerate(panel.idle):
            ax.text(1.005, i, f"{idle.seconds():.3f} s idle", transform=beside, fontsize=7, va="center")
        ax.axvline(panel.timing.makespan, color="black", linewidth=0.8, zorder=4)
        ax.set_title("\n".join(heading), loc="left", fontsize=TITLE_POINTS)
        ax.grid(axis="x", color="#bbbbbb", linewidth=0.4, zorder=0)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        top -= rows_height + GAP_INCHES
    for ax in axes[:-1]:
        ax.tick_params(axis="x", labelbottom=False)
    axes[-1].set_xlim(0, end)
    axes[-1].set_xlabel("time (s); the black line is each step's end")
    handles = legend_handles(used)
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(left / width, 1 - 0.05 / height),
               ncol=(len(handles) + 1) // 2, fontsize=8, frameon=False, handlelength=1.6, columnspacing=1.2)
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    titles = args.titles or [trace_data.trace_title(t) for t in args.traces]
    try:
        panels = [Panel(path, title, args.rows) for path, title in zip(args.traces, titles)]
    except (OSError, ValueError) as e:
        sys.exit(f"gantt.py: error: {e}")
    draw(panels, args.out, args.width)


if __name__ == "__main__":
    main(sys.argv[1:])
