#!/usr/bin/python3
"""Gantt charts of `pipegrid simulate` traces: one panel per trace.csv, stacked on one time axis so that
equal bubbles look equal across schedules; one row per pipeline rank (or per GPU), computations as bars
coloured by kind, communication as thin lanes under the row, idle time shaded so the bubble shows. A
higher chunk (virtual stage) is a lighter shade, an `up` bar of DualPipe hatched. A trace whose folder
holds deadlock.json is drawn as a deadlock: blocked rows hatched, the waits as arrows; --wait-for draws
its wait-for graph too.

    gantt.py TRACE.csv [TRACE.csv ...] --out FILE.png [--titles T ...] [--rows pipeline|gpu] [--width IN]
             [--deadlock deadlock.json] [--wait-for FILE.png]
"""
import argparse
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

import deadlock_data  # noqa: E402
import gantt_deadlock  # noqa: E402
import trace_data  # noqa: E402
import wait_for  # noqa: E402

COMPUTE_COLOURS = {"F": "#3b75af", "B": "#2e9e4f", "I": "#98d68f", "W": "#8e6bbf", "dense": "#b8a23a",
                   "optimizer": "#7f7f7f"}
EXPERTS_HATCH = "////"  # MoE expert phases: their F/B colour, hatched; attention phases plain
UP_HATCH = "\\\\"  # DualPipe's `up` direction (micro-batches entering at the last rank); down plain
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
DEADLOCK_ROW_INCHES = 0.7  # taller: the arrows between rows need room
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
    p.add_argument("--rows", choices=["pipeline", "gpu"],
                   help="one row per pipeline rank (default) or per GPU (default for a deadlock whose cycle "
                        "runs through several GPUs of one rank, when the trace holds them)")
    p.add_argument("--width", type=float, default=14.0, metavar="INCHES")
    p.add_argument("--deadlock", metavar="deadlock.json",
                   help="draw the trace as this deadlock (default: the deadlock.json beside each trace)")
    p.add_argument("--wait-for", metavar="FILE.png", help="also draw the deadlock's wait-for graph")
    args = p.parse_args(argv)
    if args.titles and len(args.titles) != len(args.traces):
        p.error(f"--titles: {len(args.titles)} titles for {len(args.traces)} traces")
    if args.deadlock and len(args.traces) != 1:
        p.error(f"--deadlock: one deadlock for {len(args.traces)} traces (each trace's own deadlock.json "
                "is found beside it)")
    return args


class Panel:
    """One trace's data, computed before drawing because the figure's size depends on every panel."""

    def __init__(self, path, title, mode, deadlock=None):
        self.trace = trace_data.read_trace(path)
        self.title = title
        if mode is None:
            mode = deadlock_data.rows_mode(deadlock, set(self.trace.host))
        self.rows = trace_data.select_rows(self.trace, mode)
        self.timing = trace_data.timing(self.trace)
        self.chunks = trace_data.chunk_count(self.trace)
        self.directions = trace_data.directions(self.trace)
        self.deadlock = deadlock
        t = self.timing
        if deadlock:
            # Partial trace: a row is busy or idle up to where it blocked (or finished); then it is hatched.
            self.rows = deadlock_data.with_blocked_rows(self.rows, deadlock)
            self.last_end = [float(self.trace[self.trace.gpu == r.gpu].end.max()) if r.gpu >= 0 else 0.0
                             for r in self.rows]
            self.hatches = deadlock_data.hatches(deadlock, self.rows, self.last_end)
            self.arrows = deadlock_data.arrows(deadlock, self.rows, self.hatches, self.last_end)
            stop = {h.row: h.since for h in self.hatches}
            self.idle = [trace_data.row_idle(self.trace, r.gpu, stop.get(i, e), stop.get(i, e))
                         for i, (r, e) in enumerate(zip(self.rows, self.last_end))]
            self.end = deadlock_data.axis_end(deadlock, t.makespan)
            self.right = gantt_deadlock.right_labels(self.hatches, self.rows, self.last_end)
        else:
            self.idle = [trace_data.row_idle(self.trace, r.gpu, t.schedule_end, t.makespan) for r in self.rows]
            self.end = t.makespan * 1.005
            self.right = [(f"{i.seconds():.3f} s idle", "black") for i in self.idle]
        self.share = trace_data.idle_share(self.idle, t.makespan)
        self.compute = [trace_data.row_compute(self.trace, r.gpu) for r in self.rows]
        self.comm = [trace_data.row_comm(self.trace, r.gpu) for r in self.rows]
        present = set().union(*(set(c.comm_class) for c in self.comm))
        self.comm_lanes = [c for c in trace_data.COMM_CLASSES if c in present]

    def heading(self, characters):
        """(title lines, fix lines), wrapped to `characters` a line; only a deadlock has fix lines."""
        if self.deadlock:
            title, fix = gantt_deadlock.heading(self.deadlock, characters - len(self.title) - 2)
            return [f"{self.title}: {title[0]}"] + title[1:], fix
        t, s = self.timing, self.share
        text = f"{self.title}: step {t.makespan:.3f} s, idle {s.total:.1%} of GPU time"
        if s.after_compute > 0:
            text += (f": {s.in_schedule:.1%} before the computation ends at {t.schedule_end:.3f} s, "
                     f"{s.after_compute:.1%} after")
        return textwrap.wrap(text, characters), []


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
    groups = ["base", "phase", "lane", "lanes", "chunk", "direction"]
    for (base, phase, lane, lanes, chunk, direction), bars in compute.groupby(groups, dropna=False):
        phase = None if phase != phase else phase  # groupby gives NaN for None
        lane_height = COMPUTE_HEIGHT / lanes
        colour = trace_data.chunk_colour(COMPUTE_COLOURS[base], chunk, panel.chunks)
        spans, band = list(zip(bars.start, bars.end - bars.start)), (y + COMPUTE_TOP + lane * lane_height,
                                                                     lane_height)
        ax.broken_barh(spans, band, facecolors=colour, edgecolor="white", linewidth=0.4,
                       hatch=EXPERTS_HATCH if phase == "experts" else None, zorder=2)
        if direction == "up":  # a second layer: its hatch in the bar's text colour, visible on any shade
            ax.broken_barh(spans, band, facecolors="none", edgecolor=trace_data.text_colour(colour),
                           linewidth=0, hatch=UP_HATCH, alpha=0.45, zorder=2.1)
        used["compute"].add((base, phase))
    for a in compute[compute.microbatch >= 0].itertuples():
        size, lane_height = 7 if a.lanes == 1 else 6, COMPUTE_HEIGHT / a.lanes
        colour = trace_data.chunk_colour(COMPUTE_COLOURS[a.base], a.chunk, panel.chunks)
        width = (a.end - a.start) * points_per_second
        label = next((t for t in trace_data.bar_labels(a.microbatch, a.chunk, panel.chunks)
                      if width >= 0.62 * size * len(t) + 5), None)
        if label is not None and lane_height * ROW_INCHES * 72 >= size + 1:
            # On hatched bars the label sits on a patch of the bar's colour, to stay legible.
            box = dict(boxstyle="square,pad=0.1", fc=colour, ec="none") \
                if a.phase == "experts" or a.direction == "up" else None
            ax.text((a.start + a.end) / 2, y + COMPUTE_TOP + (a.lane + 0.5) * lane_height, label, ha="center",
                    va="center", fontsize=size, color=trace_data.text_colour(colour), bbox=box, zorder=3)
    lane_height = COMM_HEIGHT / max(1, len(panel.comm_lanes))
    for (comm_class, kind), bars in panel.comm[y].groupby(["comm_class", "kind"]):
        top = y + COMM_TOP + panel.comm_lanes.index(comm_class) * lane_height
        ax.broken_barh(list(zip(bars.start, bars.end - bars.start)), (top, lane_height),
                       facecolors=COMM_COLOURS[kind], linewidth=0, zorder=2)
        used["comm"].add(kind)


def legend_handles(used):
    """Two rows, each group (compute, chunks, directions, idle, communication, deadlock) starting a column
    of its own. Chunks and directions show only when the trace has several chunks or a direction."""
    compute = [Patch(facecolor=COMPUTE_COLOURS[base], edgecolor="white",
                     hatch=EXPERTS_HATCH if phase == "experts" else None,
                     label=base if phase is None else f"{base} {phase}")
               for base in COMPUTE_COLOURS for phase in (None, "attention", "experts")
               if (base, phase) in used["compute"]]
    chunks = max(used["chunks"])
    shades = [Patch(facecolor=trace_data.chunk_colour(COMPUTE_COLOURS["F"], c, chunks), edgecolor="none",
                    label=f"chunk {c}: " + ("full colour, 3" if c == 0 else
                                            f"lighter, {trace_data.bar_labels(3, c, chunks)[0]}"))
              for c in range(chunks)] if chunks > 1 else []
    directions = [Patch(facecolor="#d9d9d9", edgecolor="none", label="\u2193 down: enters at rank 0"),
                  Patch(facecolor="#d9d9d9", edgecolor="black", hatch=UP_HATCH, linewidth=0,
                        label="\u2191 up: enters at the last rank")] if used["directions"] else []
    idle = ([Patch(facecolor=BUBBLE_COLOUR, label="idle (bubble)")] if used["bubble"] else []) + \
           ([Patch(facecolor=TAIL_COLOUR, label="idle after the last computation")] if used["tail"] else [])
    comm = [Patch(facecolor=colour, label=kind) for kind, colour in COMM_COLOURS.items() if kind in used["comm"]]
    deadlock = gantt_deadlock.legend_handles(used["arrows"]) if used["deadlock"] else []
    handles = []
    for group in (compute, shades, directions, idle, comm, deadlock):
        handles += group + [Patch(facecolor="none", edgecolor="none", label="")] * (len(group) % 2)
    return handles


def panel_heights(panel, heading):
    title, fix = heading
    lines = len(title) + len(fix)
    rows = (DEADLOCK_ROW_INCHES if panel.deadlock else ROW_INCHES) * len(panel.rows)
    return TITLE_INCHES + TITLE_LINE_INCHES * (lines - 1) + (0.06 if fix else 0), rows


def draw(panels, out, width):
    left = 2.3 if any("pp" in r.label for p in panels for r in p.rows) else 0.8
    longest = max(len(text) for p in panels for text, _ in p.right)
    right = max(RIGHT_INCHES, 0.15 + longest * 0.6 * 7 / 72)  # room for each row's idle seconds or wait
    axes_width = width - left - right
    headings = [p.heading(int(axes_width * 72 / (0.55 * TITLE_POINTS))) for p in panels]
    sizes = [panel_heights(p, h) for p, h in zip(panels, headings)]
    height = LEGEND_INCHES + sum(t + r for t, r in sizes) + GAP_INCHES * (len(panels) - 1) + AXIS_INCHES
    fig = plt.figure(figsize=(width, height))
    end = max(p.end for p in panels)
    for p in panels:  # one shade per chunk index across the panels, as the one legend says
        p.chunks = max(q.chunks for q in panels)
    points_per_second = axes_width * 72 / end
    used = {"compute": set(), "comm": set(), "bubble": False, "tail": False, "chunks": {1},
            "directions": False, "deadlock": False, "arrows": []}
    top, first, axes = height - LEGEND_INCHES, None, []
    for panel, heading, (title, rows_height) in zip(panels, headings, sizes):
        top -= title
        ax = fig.add_axes([left / width, (top - rows_height) / height, axes_width / width, rows_height / height],
                          sharex=first)
        first = first or ax
        axes.append(ax)
        used["chunks"].add(panel.chunks)
        used["directions"] |= bool(panel.directions)
        for y in range(len(panel.rows)):
            draw_row(ax, panel, y, points_per_second, used)
        ax.set_xlim(0, end)
        ax.set_ylim(len(panel.rows) - 0.5, -0.5)
        ax.set_yticks(range(len(panel.rows)), [r.label for r in panel.rows], fontsize=8)
        ax.tick_params(axis="y", length=0)
        beside = blended_transform_factory(ax.transAxes, ax.transData)
        for i, (text, colour) in enumerate(panel.right):
            ax.text(1.005, i, text, transform=beside, fontsize=7, va="center", color=colour)
        if panel.deadlock:
            gantt_deadlock.draw_blocked(ax, panel.hatches, end, panel.deadlock.time)
            gantt_deadlock.draw_arrows(ax, panel.arrows)
            gantt_deadlock.draw_heading(ax, *heading, TITLE_LINE_INCHES * 72, TITLE_POINTS)
            used["deadlock"], used["arrows"] = True, used["arrows"] + panel.arrows
        else:
            ax.axvline(panel.timing.makespan, color="black", linewidth=0.8, zorder=4)
            ax.set_title("\n".join(heading[0]), loc="left", fontsize=TITLE_POINTS)
        ax.grid(axis="x", color="#bbbbbb", linewidth=0.4, zorder=0)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        top -= rows_height + GAP_INCHES
    for ax in axes[:-1]:
        ax.tick_params(axis="x", labelbottom=False)
    lines = [m for m, shown in (("the black line is each step's end", any(not p.deadlock for p in panels)),
                                ("the red dashed line the deadlock", used["deadlock"])) if shown]
    axes[-1].set_xlabel("time (s); " + ", ".join(lines))
    handles = legend_handles(used)
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(left / width, 1 - 0.05 / height),
               ncol=(len(handles) + 1) // 2, fontsize=8, frameon=False, handlelength=1.6, columnspacing=1.2)
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    titles = args.titles or [trace_data.trace_title(t) for t in args.traces]
    try:
        deadlocks = [deadlock_data.read_deadlock(args.deadlock)] if args.deadlock else \
            [deadlock_data.read_deadlock(f) if f else None for f in map(deadlock_data.beside, args.traces)]
        panels = [Panel(path, title, args.rows, d) for path, title, d in zip(args.traces, titles, deadlocks)]
    except (OSError, ValueError) as e:
        sys.exit(f"gantt.py: error: {e}")
    if args.wait_for:
        drawn = [p for p in panels if p.deadlock]
        if len(drawn) != 1:
            sys.exit(f"gantt.py: error: --wait-for: {len(drawn)} deadlocked traces; it draws exactly one")
        wait_for.draw(drawn[0].deadlock, args.wait_for, sorted({r.pp for r in drawn[0].rows}), drawn[0].title)
    draw(panels, args.out, args.width)


if __name__ == "__main__":
    main(sys.argv[1:])
