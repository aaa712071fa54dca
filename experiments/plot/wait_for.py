#!/usr/bin/python3
"""The wait-for graph of a deadlock: ranks as nodes on a circle (rank 0 on top, clockwise), an arrow from
each blocked rank to the rank it waits for, labelled with the awaited action; the cycle's arrows red and
thick, the waits queued behind it grey. A deadlock is a cycle in this graph (or, for an `open` chain, a
path ending at a rank that finished its step: drawn with a dashed outline). When the cycle runs through
several GPUs of one rank (the ranks' graph would loop on a rank, e.g. --grad-sync-order crossed) and the
file has the executor's gpu_edges, the nodes are GPUs instead, the cycle's first in its order.

    wait_for.py deadlock.json --out FILE.png [--title T]
"""
import argparse
import math
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # headless: this runs in CTest and over ssh
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch  # noqa: E402

import deadlock_data  # noqa: E402

RED, GREY = "#c0392b", "#8a8a8a"
SIZE_INCHES = 6.4
RADIUS, NODE = 1.0, 0.2  # the circle of ranks and each node's radius, in data units
GPU_NODE = 0.25  # a GPU's node: room for its host over `pp P dp D`
LIMIT = RADIUS + 0.5  # the axes span ±LIMIT vertically
WIDE = RADIUS + 0.95  # and ±WIDE across: room for the labels beside the side nodes


def positions(nodes, flat=False):
    """Each rank's centre: rank order clockwise from the top; two ranks side by side, one in the middle.
    `flat`: the first node top left of a flat top edge instead (GPUs: four make a square, the ring of a
    cycle through them reads along its sides)."""
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    start = math.pi if len(nodes) == 2 else math.pi / 2 + (math.pi / len(nodes) if flat else 0)
    return {n: (RADIUS * math.cos(start - 2 * math.pi * i / len(nodes)),
                RADIUS * math.sin(start - 2 * math.pi * i / len(nodes))) for i, n in enumerate(nodes)}


def draw_edge(ax, a, b, edge, reciprocal, node=NODE, label=None, outside=False):
    """An arrow between node boundaries; a pair of opposite edges bends apart so both stay visible.
    `outside`: a straight edge's label beside it, away from the centre, so that the whole arrow shows."""
    colour, width = (RED, 2.6) if edge.in_cycle else (GREY, 1.5)
    rad = 0.28 if reciprocal else 0.0
    shrink = node * 72 * SIZE_INCHES / (2 * LIMIT)  # the node's radius in points
    ax.add_patch(FancyArrowPatch(a, b, connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>", mutation_scale=18,
                                 color=colour, linewidth=width, shrinkA=shrink, shrinkB=shrink + 2, zorder=2))
    (x1, y1), (x2, y2) = a, b  # the curve's middle (data and display axes are equal here)
    x, y = (x1 + x2) / 2 + rad * (y2 - y1) / 2, (y1 + y2) / 2 - rad * (x2 - x1) / 2
    ha = va = "center"
    norm = math.hypot(x, y)
    if outside and not reciprocal and norm > 0.1:
        ux, uy = x / norm, y / norm
        x, y = x + 0.05 * ux, y + 0.05 * uy
        ha = "center" if abs(ux) < 0.5 else "left" if ux > 0 else "right"
        va = "center" if abs(uy) < 0.5 else "bottom" if uy > 0 else "top"
    ax.text(x, y, edge.label if label is None else label, ha=ha, va=va, multialignment="center", fontsize=10,
            color=colour, zorder=4, linespacing=1.1, weight="bold" if edge.in_cycle else "normal",
            bbox=dict(boxstyle="round,pad=0.25", fc="white", ec=colour, lw=0.8))


def draw_self_loop(ax, centre, edge):
    """A rank waiting on itself (replicas of one pipeline rank): a loop over its node."""
    colour = RED if edge.in_cycle else GREY
    x, y = centre
    ax.add_patch(FancyArrowPatch((x - NODE * 0.6, y + NODE * 0.8), (x + NODE * 0.6, y + NODE * 0.8),
                                 connectionstyle="arc3,rad=-1.6", arrowstyle="-|>", mutation_scale=14,
                                 color=colour, linewidth=2, zorder=2))
    ax.text(x, y + NODE * 2.3, edge.label, ha="center", va="bottom", fontsize=10, color=colour, zorder=4)


def draw(deadlock, out, ranks=(), title=""):
    """The graph between pipeline ranks (`ranks` added as nodes, e.g. the trace's), or between GPUs when
    deadlock_data.over_gpus says the ranks' would hide the cycle."""
    waits = deadlock.cycle + deadlock.blocked
    gpus = deadlock_data.over_gpus(deadlock)
    if gpus:
        gpu_nodes, edges = deadlock_data.gpu_graph(deadlock)
        nodes = [n.host for n in gpu_nodes]
        labels = {n.host: n.label for n in gpu_nodes}
        key = lambda w: w.gpu  # noqa: E731
        unit, node = "GPU", GPU_NODE
    else:
        nodes, edges = deadlock_data.graph(deadlock, ranks)
        labels = {n: f"rank\n{n}" for n in nodes}
        key = lambda w: w.rank  # noqa: E731
        unit, node = "rank", NODE
    where = positions(nodes, flat=gpus)
    blocked = {key(w) for w in waits}
    in_cycle = {key(w) for w in deadlock.cycle}
    at = {}
    for w in waits:
        at.setdefault(key(w), w.blocked_at)
    heading = f"{title + ': ' if title else ''}wait-for graph, {deadlock.shape or 'deadlock'} at " \
              f"t = {deadlock.time:g} s"
    width = SIZE_INCHES * WIDE / LIMIT
    heading = textwrap.wrap(heading, int(width * 72 / (0.7 * 11)))
    notes = textwrap.wrap(f"fix: {deadlock.hint}", int(width * 72 / (0.6 * 8))) if deadlock.hint else []
    if gpus:  # which ranks the cycle passes more than once: why the nodes are not ranks
        shared = {}
        for w in deadlock.cycle:
            shared.setdefault(w.rank, []).append(w.gpu)
        notes.append("nodes are GPUs, as the cycle runs through several GPUs of one pipeline rank ("
                     + "; ".join(f"pp {r}: {', '.join(g)}" for r, g in sorted(shared.items()) if len(g) > 1) + ")")
    notes.append((f"red: the chain of waits, ending at a {unit} that finished" if deadlock.open else
                  "red: the cycle of waits")
                 + ("; grey: waits queued behind it" if any(not e.in_cycle for e in edges) else "")
                 + (f"; dashed: a {unit} that is not blocked (it finished its step)" if set(nodes) - blocked else ""))
    top = 0.25 + 0.2 * len(heading) + 0.15 * len(notes)  # the header's inches
    # Equal scales on both axes: the axes are as tall as the nodes' span needs (two ranks: one line).
    span = max(abs(y) for _, y in where.values()) + LIMIT - RADIUS
    height = SIZE_INCHES * span / LIMIT
    fig = plt.figure(figsize=(width, height + top))
    ax = fig.add_axes([0, 0, 1, height / (height + top)])
    fig.text(0.03, 1 - 0.12 / (height + top), "\n".join(heading), ha="left", va="top", fontsize=11,
             weight="bold", color=RED)
    fig.text(0.03, 1 - (0.17 + 0.2 * len(heading)) / (height + top), "\n".join(notes), ha="left", va="top",
             fontsize=8, style="italic")
    ax.set_xlim(-WIDE, WIDE)
    ax.set_ylim(-span, span)
    ax.set_aspect("equal")
    ax.axis("off")
    pairs = {(e.source, e.target) for e in edges}
    for e in edges:
        if e.source == e.target:
            draw_self_loop(ax, where[e.source], e)
        else:
            # Between GPUs the labels go on two lines (`collective` over the collective), narrower than
            # the side of the square, outside the ring of the cycle.
            draw_edge(ax, where[e.source], where[e.target], e, (e.target, e.source) in pairs, node,
                      e.label.replace(" ", "\n", 1) if gpus else None, outside=gpus)
    for n in nodes:
        face = "#f6c6c0" if n in in_cycle else "#fbe4e1" if n in blocked else "white"
        ax.add_patch(Circle(where[n], node, facecolor=face, edgecolor=RED if n in in_cycle else "black",
                            linewidth=2 if n in in_cycle else 1.2, linestyle="-" if n in blocked else "--",
                            zorder=3))
        ax.text(*where[n], labels[n], ha="center", va="center", fontsize=9 if gpus else 10, zorder=5,
                linespacing=1.1 if gpus else 1.0)
        if n in at:  # where it is stuck, outside the circle (radially) where no edge runs
            x, y = where[n]
            norm = math.hypot(x, y) or 1.0
            ux, uy = (x / norm, y / norm) if (x, y) != (0.0, 0.0) else (0.0, -1.0)
            ax.text(x + ux * (node + 0.07), y + uy * (node + 0.07), f"at {at[n]}", fontsize=8, color=RED,
                    ha="center" if abs(ux) < 0.5 else "left" if ux > 0 else "right",
                    va="center" if abs(uy) < 0.5 else "bottom" if uy > 0 else "top", zorder=5)
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("deadlock", metavar="deadlock.json")
    p.add_argument("--out", required=True, metavar="FILE.png")
    p.add_argument("--title", default="")
    args = p.parse_args(argv)
    try:
        deadlock = deadlock_data.read_deadlock(args.deadlock)
    except (OSError, ValueError) as e:
        sys.exit(f"wait_for.py: error: {e}")
    draw(deadlock, args.out, title=args.title)


if __name__ == "__main__":
    main(sys.argv[1:])
