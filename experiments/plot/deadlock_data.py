#!/usr/bin/python3
"""The data behind a deadlock's pictures, apart from the drawing so that tests can check it: deadlock.json
read (the one format of the checker, the comm engine and the executor), which Gantt rows are hatched from
when, which arrows the cycle of waits draws, and the wait-for graph's nodes and edges (between pipeline
ranks, or between GPUs where a cycle runs through several GPUs of one rank)."""
from dataclasses import dataclass
import json
import pathlib
import re

from trace_data import Row as trace_row

DEADLOCK_FILE = "deadlock.json"  # written beside trace.csv by every engine on a deadlock


@dataclass(frozen=True)
class Wait:
    """One blocked rank (or GPU): where it is stuck since when, and whom it waits for to do what."""
    rank: int
    gpu: str
    blocked_at: str
    blocked_since: float
    waits_for: int          # -1 when the file does not say
    action: str             # the awaited action, e.g. 1B3
    what: str               # compute, send, receive or collective; "" when the file does not say
    peer: str = ""          # the executor's host it waits for, when the file names one
    target_gpu: str = ""    # the host of `waits_for` (the executor's waits_for.gpu), "" when not named
    dp: int = -1            # its data-parallel replica, -1 when the file does not say

    def awaited(self):
        """What the arrow out of this wait says: `receive 0F1`, or the action alone — a comm action
        (`3RECV_F1`) names what the peer has to post already."""
        if "SEND_" in self.action or "RECV_" in self.action:
            return self.action
        return f"{self.what} {self.action}".strip()


@dataclass(frozen=True)
class Deadlock:
    engine: str
    time: float
    chain: str
    cycle: list
    open: bool
    blocked: list
    edges: list             # (from rank, to rank, label), the file's wait_for edges
    shape: str
    hint: str
    gpu_edges: tuple = ()   # (from host, to host, label), the executor's wait_for.gpu_edges; () if absent


def _wait(entry):
    """A WAIT of the file. `rank` is the pipeline rank (the executor's pp); `gpu` is the host name."""
    waits = entry.get("waits_for") or {}
    rank = entry.get("rank", entry.get("pp"))
    if rank is None:
        raise ValueError("a wait names no rank")
    return Wait(int(rank), str(entry.get("gpu", f"rank {rank}")), str(entry.get("blocked_at", "")),
                float(entry["blocked_since"]) if "blocked_since" in entry else float("nan"),
                int(waits.get("rank", -1)), str(waits.get("action", entry.get("message", ""))),
                str(waits.get("what", "")), str(entry.get("peer", "")), str(waits.get("gpu", "")),
                int(entry.get("dp", -1)))


def read_deadlock(path):
    """The deadlock.json at `path`. A file written before issue 12 (time, cycle, blocked only) still reads:
    its cycle's order says whom each wait waits for, and blocked_since is left unknown (NaN)."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text())
        cycle = [_wait(w) for w in data.get("cycle", [])]
        blocked = [_wait(w) for w in data.get("blocked", [])]
        time = float(data["time"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a deadlock.json ({e})") from None
    is_open = bool(data.get("open", False))
    if cycle and all(w.waits_for < 0 for w in cycle) and not is_open:
        cycle = [_with_target(w, cycle[(i + 1) % len(cycle)].rank) for i, w in enumerate(cycle)]
        targets = {w.gpu: w.waits_for for w in cycle}
        blocked = [_with_target(w, targets.get(w.gpu, -1)) for w in blocked]
    edges = [(int(e["from"]), int(e["to"]), str(e.get("label", "")))
             for e in data.get("wait_for", {}).get("edges", [])]
    if not edges:
        edges = sorted({(w.rank, w.waits_for, w.action) for w in blocked + cycle if w.waits_for >= 0})
    gpu_edges = tuple((str(e["from"]), str(e["to"]), str(e.get("label", "")))
                      for e in data.get("wait_for", {}).get("gpu_edges", []))
    hint = data.get("hint") or {}
    return Deadlock(str(data.get("engine", "executor")), time, str(data.get("chain", "")), cycle, is_open,
                    blocked, edges, str(hint.get("shape", "")), str(hint.get("text", "")), gpu_edges)


def _with_target(wait, rank):
    return Wait(wait.rank, wait.gpu, wait.blocked_at, wait.blocked_since, rank, wait.action, wait.what,
                wait.peer, wait.target_gpu, wait.dp)


def beside(trace_path):
    """The deadlock.json in the trace's folder, or None."""
    path = pathlib.Path(trace_path).parent / DEADLOCK_FILE
    return path if path.exists() else None


def title(deadlock):
    """The panel's heading: `DEADLOCK at t = 6.006 s: <chain>`."""
    head = f"DEADLOCK at t = {deadlock.time:g} s"
    return f"{head}: {deadlock.chain}" if deadlock.chain else head


def axis_end(deadlock, makespan):
    """The time axis stops a little after the deadlock (12 %), so that the hatching of the ranks blocked
    last shows, and the labels of arrows drawn at the deadlock's time fit."""
    return max(deadlock.time, makespan) * 1.12


def row_index(rows, wait):
    """The Gantt row a wait is drawn on: the row of its GPU (host), else the row of its pipeline rank (in
    pipeline mode a tp/dp replica's wait is drawn on its rank's row); None when neither is drawn."""
    for i, row in enumerate(rows):
        if row.host == wait.gpu:
            return i
    if len({r.pp for r in rows}) == len(rows):  # one row per pipeline rank
        return rank_row(rows, wait.rank)
    return None


def with_blocked_rows(rows, deadlock):
    """`rows` plus one for each blocked rank or GPU the partial trace never names (blocked before it
    finished anything), in pipeline-rank order: a rank stuck from t = 0 must show too."""
    pipeline = len({r.pp for r in rows}) == len(rows)
    extra = []
    for w in deadlock.blocked + deadlock.cycle:
        if row_index(rows + extra, w) is None:
            label = f"rank {w.rank}" if pipeline else f"{w.gpu}  pp {w.rank}"
            extra.append(trace_row(-1 - len(extra), label, w.gpu, w.rank))
    return sorted(rows + extra, key=lambda r: r.pp) if extra else rows


def rank_row(rows, rank):
    """The first row of pipeline rank `rank` (with --rows gpu, its tp 0 dp 0 replica comes first)."""
    return next((i for i, r in enumerate(rows) if r.pp == rank), None)


@dataclass(frozen=True)
class Hatch:
    """Row `row` is blocked from `since` to the right edge, at `label`."""
    row: int
    since: float
    label: str


def hatches(deadlock, rows, last_end):
    """One hatch per blocked row, from the earliest blocked_since of the waits drawn on it (a file without
    blocked_since: the end of the row's last action, `last_end[row]`)."""
    out = {}
    for w in deadlock.blocked or deadlock.cycle:
        i = row_index(rows, w)
        if i is None:
            continue
        since = w.blocked_since if w.blocked_since == w.blocked_since else last_end[i]
        if i not in out or since < out[i].since:
            out[i] = Hatch(i, since, w.blocked_at)
    return [out[i] for i in sorted(out)]


@dataclass(frozen=True)
class Arrow:
    """From row `source` at time `x0` to row `target` at `x1`, labelled with the awaited action; in_cycle
    for the cycle's waits (red), else a wait queued behind it (grey)."""
    source: int
    x0: float
    target: int
    x1: float
    label: str
    in_cycle: bool


def arrows(deadlock, rows, hatch_list, last_end):
    """The waits as arrows between blocked points: each arrow leaves its row where it blocked and ends
    where the rank it waits for blocked, or, for a target that finished its step (an open chain's last
    wait), where it finished: `last_end[row]`. The cycle's come first, then the other blocked waits;
    waits within one row (replicas of one rank in pipeline rows) draw none."""
    since = {h.row: h.since for h in hatch_list}
    in_cycle = {w.gpu for w in deadlock.cycle}
    out = []
    for w in deadlock.cycle + [w for w in deadlock.blocked if w.gpu not in in_cycle]:
        target = next((i for i, r in enumerate(rows) if w.peer and r.host == w.peer), None)
        source, target = row_index(rows, w), rank_row(rows, w.waits_for) if target is None else target
        if source is None or target is None or source == target or source not in since:
            continue
        arrow = Arrow(source, since[source], target, since.get(target, last_end[target]), w.awaited(),
                      w.gpu in in_cycle)
        if arrow not in out:
            out.append(arrow)
    return out


@dataclass(frozen=True)
class Edge:
    source: int
    target: int
    label: str
    in_cycle: bool


def graph(deadlock, ranks=()):
    """The wait-for graph: its nodes (every rank named, sorted, plus `ranks`, e.g. the trace's) and its
    edges; an edge is in the cycle when a cycle wait goes from its source to its target. A label is the
    cycle's or blocked wait's `what action` text when one matches the edge, so the graph and the Gantt's
    arrows read alike."""
    waits = {(w.rank, w.waits_for, w.action): w for w in deadlock.blocked + deadlock.cycle}
    in_cycle = {(w.rank, w.waits_for) for w in deadlock.cycle}
    edges = []
    for a, b, label in deadlock.edges:
        w = waits.get((a, b, label))
        edge = Edge(a, b, w.awaited() if w else label, (a, b) in in_cycle)
        if edge not in edges:
            edges.append(edge)
    nodes = sorted(set(ranks) | {e.source for e in edges} | {e.target for e in edges}
                   | {w.rank for w in deadlock.blocked + deadlock.cycle})
    return nodes, edges


def blocked_ranks(deadlock):
    return sorted({w.rank for w in deadlock.blocked + deadlock.cycle})


def over_gpus(deadlock):
    """Whether the wait-for graph is drawn between GPUs: the file has gpu_edges, and the graph between
    pipeline ranks would hide the cycle — a rank waiting for itself (a self-loop), or two of the cycle's
    GPUs in one rank (the ranks' picture would pass through a node twice)."""
    ranks = [w.rank for w in deadlock.cycle]
    return bool(deadlock.gpu_edges) and (any(a == b for a, b, _ in deadlock.edges) or len(set(ranks)) < len(ranks))


def rows_mode(deadlock, hosts):
    """gantt.py's rows when --rows is not given: one per GPU for a deadlock whose cycle runs through
    several GPUs of one pipeline rank (over_gpus) and whose GPUs the trace holds, else one per rank."""
    if deadlock and over_gpus(deadlock) and {w.gpu for w in deadlock.cycle} <= set(hosts):
        return "gpu"
    return "pipeline"


def _natural(host):
    """gpu2 before gpu10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", host)]


@dataclass(frozen=True)
class Node:
    """A GPU of the wait-for graph between GPUs: its host, and its label (`gpu2` over `pp 1 dp 0` when the
    file says where it is)."""
    host: str
    label: str


def gpu_graph(deadlock):
    """The wait-for graph between GPUs, from the file's gpu_edges: its nodes, the cycle's GPUs first in the
    cycle's order (so that the cycle is drawn as a ring), then every other GPU named, by pipeline rank,
    replica and host; its edges, in the file's order, in the cycle when a cycle wait goes from its source
    to its target (the GPU it waits for: its waits_for.gpu, else the next in the cycle). Labels read as
    in graph()."""
    waits = deadlock.cycle + deadlock.blocked
    known = {}
    for w in waits:
        known.setdefault(w.gpu, w)
    cycle = deadlock.cycle
    in_cycle = {(w.gpu, w.target_gpu or (cycle[(i + 1) % len(cycle)].gpu if not deadlock.open else ""))
                for i, w in enumerate(cycle)}
    texts = {(w.gpu, w.target_gpu, w.action): w.awaited() for w in waits if w.target_gpu}
    edges = []
    for a, b, label in deadlock.gpu_edges:
        edge = Edge(a, b, texts.get((a, b, label), label), (a, b) in in_cycle)
        if edge not in edges:
            edges.append(edge)
    order = list(dict.fromkeys(w.gpu for w in cycle))
    others = {h for e in edges for h in (e.source, e.target)} | set(known)
    rank = lambda h: (known[h].rank, known[h].dp) if h in known else (float("inf"), -1)  # noqa: E731
    order += sorted(others - set(order), key=lambda h: (rank(h), _natural(h)))
    nodes = []
    for h in order:
        w = known.get(h)
        where = "" if w is None else f"pp {w.rank}" + (f" dp {w.dp}" if w.dp >= 0 else "")
        nodes.append(Node(h, f"{h}\n{where}" if where else h))
    return nodes, edges
