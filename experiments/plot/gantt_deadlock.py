"""What gantt.py draws over a deadlocked trace: each blocked row hatched from where it blocked to the
right edge, the deadlock's time as a dashed line, and the waits as arrows between the blocked points (the
cycle red, the waits queued behind it grey). The data (rows, times, arrows) comes from deadlock_data."""
import textwrap

from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle

import deadlock_data

RED, GREY = "#c0392b", "#8a8a8a"
BLOCKED_FACE, BLOCKED_HATCH = "#fbe4e1", "///"
ROW_TOP, ROW_HEIGHT = -0.46, 0.92  # the hatch covers the row's bars and its comm lanes
LABEL_POINTS = 7.5
BULGE = 16  # points between an arrow's middle and its chord


def heading(deadlock, characters):
    """(title lines, fix lines): `DEADLOCK at t = … s: <chain>` and `fix: <hint>`, each wrapped."""
    title = textwrap.wrap(deadlock_data.title(deadlock), characters)
    fix = textwrap.wrap(f"fix ({deadlock.shape}): {deadlock.hint}" if deadlock.shape else
                        f"fix: {deadlock.hint}", characters) if deadlock.hint else []
    return title, fix


def draw_heading(ax, title, fix, line_points, points):
    """The title in bold red above the fix lines, both left-aligned on the axes' top-left corner."""
    ax.annotate("\n".join(fix), (0, 1), xycoords="axes fraction", xytext=(0, 4), textcoords="offset points",
                va="bottom", ha="left", fontsize=points, style="italic", linespacing=1.15)
    ax.annotate("\n".join(title), (0, 1), xycoords="axes fraction",
                xytext=(0, 4 + line_points * len(fix)), textcoords="offset points", va="bottom", ha="left",
                fontsize=points, weight="bold", color=RED, linespacing=1.15)


def draw_blocked(ax, hatches, end, time):
    """Hatched rows, a red tick where each row blocked, and the deadlock's time."""
    for h in hatches:
        ax.add_patch(Rectangle((h.since, h.row + ROW_TOP), end - h.since, ROW_HEIGHT, facecolor=BLOCKED_FACE,
                               edgecolor=RED, hatch=BLOCKED_HATCH, linewidth=0, zorder=1.5))
        ax.plot([h.since, h.since], [h.row + ROW_TOP, h.row + ROW_TOP + ROW_HEIGHT], color=RED, linewidth=2.2,
                solid_capstyle="butt", zorder=5)
    ax.axvline(time, color=RED, linewidth=1, linestyle=(0, (4, 3)), zorder=4)


def right_labels(hatches, rows, last_end):
    """The text at each row's right: `blocked at X` for blocked rows, `finished at T s` for the others."""
    blocked = {h.row: h for h in hatches}
    return [(f"blocked at {blocked[i].label}", RED) if i in blocked else
            (f"finished at {last_end[i]:g} s", "black") for i in range(len(rows))]


def arc_apex(ax, a, b, rad):
    """The middle of matplotlib's arc3 curve from a to b (data coordinates) and the unit normal it bulges
    along (display coordinates): the curve is the quadratic Bézier whose control point is the chord's
    middle moved by rad × the chord turned a quarter, so its middle lies half as far."""
    (x1, y1), (x2, y2) = ax.transData.transform([a, b])
    nx, ny = rad * (y2 - y1), -rad * (x2 - x1)
    norm = max(1e-9, (nx * nx + ny * ny) ** 0.5)
    apex = ax.transData.inverted().transform(((x1 + x2) / 2 + nx / 2, (y1 + y2) / 2 + ny / 2))
    return apex, (nx / norm, ny / norm)


def bend(ax, a, b, rows_between):
    """arc3's rad for a curve whose middle lies BULGE points off the chord (plus a third of a row per row
    it passes), whatever the chord's length: a pair of opposite waits then reads as one loop."""
    (x1, y1), (x2, y2) = ax.transData.transform([a, b])
    row_points = abs(ax.transData.transform((0, 1))[1] - ax.transData.transform((0, 0))[1])
    chord = max(1.0, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5)
    return 2 * (BULGE + row_points * rows_between / 3) / chord


def draw_arrows(ax, arrows):
    """Arrows between rows, over the bars; limits must be set first (the label sits on the curve's
    middle, computed in display coordinates). Arrows between non-adjacent rows bend more, to pass beside
    the rows between rather than along them."""
    for a in arrows:
        colour, width = (RED, 2.0) if a.in_cycle else (GREY, 1.3)
        start, stop = (a.x0, a.source), (a.x1, a.target)
        rad = bend(ax, start, stop, abs(a.target - a.source) - 1)
        ax.add_patch(FancyArrowPatch(start, stop, connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
                                     mutation_scale=15, color=colour, linewidth=width, shrinkA=0, shrinkB=3,
                                     zorder=6))
        # The label just outside the curve's middle, on the side it bulges to: two opposite waits bulge
        # to opposite sides, so their labels never meet, and no label hides its own arrow.
        (x, y), (nx, ny) = arc_apex(ax, start, stop, rad)
        ax.annotate(a.label, (x, y), xytext=(3 * nx, 3 * ny), textcoords="offset points", fontsize=LABEL_POINTS,
                    color=colour, zorder=7, weight="bold" if a.in_cycle else "normal",
                    ha="center" if abs(nx) < 0.5 else "left" if nx > 0 else "right",
                    va="center" if abs(ny) < 0.5 else "bottom" if ny > 0 else "top",
                    bbox=dict(boxstyle="round,pad=0.2", fc="white", ec=colour, lw=0.6))


def legend_handles(arrows):
    handles = [Patch(facecolor=BLOCKED_FACE, edgecolor=RED, hatch=BLOCKED_HATCH, linewidth=0,
                     label="blocked (from where it blocks)"),
               Line2D([], [], color=RED, linewidth=2, marker=">", markevery=[1], markersize=6,
                      label="cycle: waits for")]
    if any(not a.in_cycle for a in arrows):
        handles.append(Line2D([], [], color=GREY, linewidth=1.3, marker=">", markevery=[1], markersize=5,
                              label="waits (not in the cycle)"))
    return handles
