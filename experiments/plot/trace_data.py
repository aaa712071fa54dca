#!/usr/bin/python3
"""The data behind gantt.py, kept apart from the drawing so that tests can check it without a figure:
which GPUs of a `pipegrid simulate` trace.csv become rows, what class each trace kind is drawn as, how
actions that overlap on one GPU share its row, and each row's idle gaps."""
from dataclasses import dataclass
import json
import math
import pathlib

import pandas as pd

TRACE_COLUMNS = ["gpu", "host", "node", "tp", "dp", "pp", "track", "kind", "stage", "microbatch", "peer",
                 "bytes", "start", "end", "chunk", "direction"]
# Traces written before chunk and direction were added: read with both columns empty.
OLD_TRACE_COLUMNS = TRACE_COLUMNS[:-2]

# Compute kinds (README, "pipegrid simulate"): the four actions, then the MoE phases of a chunk, which
# are parts of an F or a backward and drawn as such. A backward's phases stand for a B or an I alike
# (the executor names both the same way). `dense` is a dense chunk run inside an op with an MoE one;
# `optimizer` the update that ends each training step.
COMPUTE_KINDS = {
    "F": ("F", None), "B": ("B", None), "I": ("I", None), "W": ("W", None),
    "F-attention": ("F", "attention"), "F-experts": ("F", "experts"),
    "B-attention": ("B", "attention"), "B-experts": ("B", "experts"),
    "dense": ("dense", None), "optimizer": ("optimizer", None),
}
COMM_KINDS = {
    "p2p": "p2p",
    "tp-allreduce": "collective", "dp-allreduce": "collective", "expert-dp-allreduce": "collective",
    "embedding-allreduce": "collective", "stage-copy-allreduce": "collective",
    "dp-reduce-scatter": "collective", "dp-all-gather": "collective",
    "dispatch": "all-to-all", "combine": "all-to-all", "combine-grad": "all-to-all", "dispatch-grad": "all-to-all",
}
COMM_CLASSES = ["p2p", "collective", "all-to-all"]  # the order of the lanes under a row

# Two intervals closer than this (seconds) touch rather than overlap: trace times are sums of floats.
EPSILON = 1e-12


def compute_class(kind):
    """(base, phase): base is F, B, I, W or dense (the colour); phase None, attention or experts."""
    if kind not in COMPUTE_KINDS:
        raise ValueError(f"unknown compute kind '{kind}'")
    return COMPUTE_KINDS[kind]


def comm_class(kind):
    """p2p, collective or all-to-all: the lane a transfer is drawn in."""
    if kind not in COMM_KINDS:
        raise ValueError(f"unknown communication kind '{kind}'")
    return COMM_KINDS[kind]


def read_trace(path):
    trace = pd.read_csv(path, dtype={"host": str, "peer": str, "track": str, "kind": str, "direction": str})
    if list(trace.columns) == OLD_TRACE_COLUMNS:
        trace["chunk"] = float("nan")
        trace["direction"] = float("nan")
    if list(trace.columns) != TRACE_COLUMNS:
        raise ValueError(f"{path}: expected the columns {','.join(TRACE_COLUMNS)}, got {','.join(trace.columns)}")
    return trace


def trace_title(path):
    """The schedule named in the summary.json next to the trace, or else the trace's folder name."""
    path = pathlib.Path(path)
    summary = path.parent / "summary.json"
    if summary.exists():
        schedule = json.loads(summary.read_text()).get("inputs", {}).get("schedule")
        if schedule:
            return schedule
    return path.parent.name or path.stem


@dataclass(frozen=True)
class Row:
    gpu: int
    label: str


def select_rows(trace, mode):
    """`pipeline`: one GPU per pipeline rank, the one with tp 0 and dp 0 (the GPU `--trace pipeline` keeps);
    `gpu`: every GPU, grouped by pipeline rank then data-parallel then tensor-parallel index, so a rank's
    replicas sit together whatever the placement numbered them."""
    gpus = trace[["gpu", "host", "tp", "dp", "pp"]].drop_duplicates("gpu")
    if mode == "pipeline":
        chosen = gpus[(gpus.tp == 0) & (gpus.dp == 0)].sort_values("pp")
        if chosen.pp.duplicated().any():
            raise ValueError("two GPUs claim tp 0, dp 0 of one pipeline rank")
        return [Row(int(g.gpu), f"rank {g.pp}") for g in chosen.itertuples()]
    if mode == "gpu":
        chosen = gpus.sort_values(["pp", "dp", "tp", "gpu"])
        return [Row(int(g.gpu), f"{g.host}  pp {g.pp} dp {g.dp} tp {g.tp}") for g in chosen.itertuples()]
    raise ValueError(f"rows must be pipeline or gpu, not '{mode}'")


def merge_intervals(intervals):
    """The union of (start, end) intervals, as sorted disjoint intervals."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1] + EPSILON:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def gaps(busy, lo, hi):
    """The parts of [lo, hi] that no interval of `busy` (sorted, disjoint) covers."""
    out, cursor = [], lo
    for start, end in busy:
        if start > cursor + EPSILON:
            out.append((cursor, min(start, hi)))
        cursor = max(cursor, end)
    if hi > cursor + EPSILON:
        out.append((cursor, hi))
    return [(a, b) for a, b in out if b > a + EPSILON]


@dataclass
class RowIdle:
    """A row's idle gaps (no computation), split where the trace's last computation ends: before it they
    are the pipeline's bubble; after it every GPU only waits for the gradient all-reduces to finish."""
    in_schedule: list
    after_compute: list

    def seconds(self):
        return sum(b - a for a, b in self.in_schedule + self.after_compute)


def row_idle(trace, gpu, schedule_end, makespan):
    compute = trace[(trace.gpu == gpu) & (trace.track == "compute")]
    busy = merge_intervals(zip(compute.start, compute.end))
    idle = gaps(busy, 0.0, makespan)
    before = [(a, min(b, schedule_end)) for a, b in idle if a < schedule_end - EPSILON]
    after = [(max(a, schedule_end), b) for a, b in idle if b > schedule_end + EPSILON]
    return RowIdle(before, after)


@dataclass
class Timing:
    """A trace's step time and when its computation ends, over all its GPUs (not only the rows drawn)."""
    makespan: float
    schedule_end: float


def timing(trace):
    compute = trace[trace.track == "compute"]
    return Timing(float(trace.end.max()), float(compute.end.max()) if len(compute) else 0.0)


@dataclass
class IdleShare:
    """Idle GPU time of the rows as fractions of rows × makespan: total = in_schedule + after_compute."""
    total: float
    in_schedule: float
    after_compute: float


def idle_share(idles, makespan):
    whole = len(idles) * makespan
    if whole <= 0:
        return IdleShare(0.0, 0.0, 0.0)
    before = sum(b - a for i in idles for a, b in i.in_schedule) / whole
    after = sum(b - a for i in idles for a, b in i.after_compute) / whole
    return IdleShare(before + after, before, after)


def assign_lanes(actions):
    """Splits a row among actions that run at once (an overlapped F&B pair is two rows of the trace with
    one interval). `actions` is a list of (start, end, order) sorted by start then order; returns, per
    action, (lane, lanes): its sub-row and how many sub-rows its group of overlapping actions needs."""
    lane_of, groups = [], []
    group_end, lane_ends = -math.inf, []
    for start, end, _ in actions:
        if start >= group_end - EPSILON:  # nothing running: a new group
            groups.append([])
            lane_ends, group_end = [], end
        group_end = max(group_end, end)
        lane = next((i for i, e in enumerate(lane_ends) if e <= start + EPSILON), len(lane_ends))
        if lane == len(lane_ends):
            lane_ends.append(end)
        else:
            lane_ends[lane] = end
        groups[-1].append(len(lane_of))
        lane_of.append(lane)
    lanes = [0] * len(lane_of)
    for members in groups:
        width = max(lane_of[i] for i in members) + 1
        for i in members:
            lanes[i] = width
    return list(zip(lane_of, lanes))


KIND_ORDER = {"F": 0, "B": 1, "I": 2, "W": 3, "dense": 4, "optimizer": 5}


def row_compute(trace, gpu):
    """The row's computations with their class and lane, sorted by start (F above B in a pair)."""
    rows = trace[(trace.gpu == gpu) & (trace.track == "compute")].copy()
    classes = [compute_class(k) for k in rows.kind]
    rows["base"] = [c[0] for c in classes]
    rows["phase"] = [c[1] for c in classes]
    rows["order"] = [KIND_ORDER[c[0]] for c in classes]
    rows = rows.sort_values(["start", "order"], kind="stable").reset_index(drop=True)
    lanes = assign_lanes(list(zip(rows.start, rows.end, rows.order)))
    rows["lane"] = [lane for lane, _ in lanes]
    rows["lanes"] = [n for _, n in lanes]
    return rows


def row_comm(trace, gpu):
    rows = trace[(trace.gpu == gpu) & (trace.track == "comm")].copy()
    rows["comm_class"] = [comm_class(k) for k in rows.kind]
    return rows
