#!/usr/bin/python3
"""The data behind curves.py and heatmap.py, kept apart from the drawing so that tests can check it: a
sweep's results.csv read as its axes and metrics, filtered with --where, and laid out as one line per
group or as a grid over two axes."""
from dataclasses import dataclass
import math

import pandas as pd

STATUS_COLUMNS = ["status", "message"]
# The sweep's metric columns (sim/sweep/results_csv.h), in order.
METRICS = ["makespan", "first_step", "steady_step", "bubble_fraction", "tflops_per_gpu", "mfu", "samples_per_second"]
METRIC_LABELS = {
    "makespan": "run time, all steps (s)", "first_step": "first step (s)", "steady_step": "step time (s)",
    "bubble_fraction": "bubble fraction", "tflops_per_gpu": "TFLOP/s per GPU", "mfu": "MFU",
    "samples_per_second": "samples per second",
}
STATUSES = ["ok", "deadlock", "invalid", "timeout", "error"]


def read_results(path):
    """Axis values stay text (as the sweep wrote them, so `--where platform.file=a.xml` and `=8` both match
    what the file says); metrics become floats, NaN where a run did not finish."""
    results = pd.read_csv(path, dtype=str, keep_default_na=False)
    columns = list(results.columns)
    expected_tail = STATUS_COLUMNS + METRICS
    if not columns or columns[0] != "id" or columns[-len(expected_tail):] != expected_tail:
        raise ValueError(f"{path}: expected the columns id, the sweep's axes, then {','.join(expected_tail)}")
    for metric in METRICS:
        results[metric] = pd.to_numeric(results[metric].replace("", math.nan))
    unknown = set(results.status) - set(STATUSES)
    if unknown:
        raise ValueError(f"{path}: unknown status {', '.join(sorted(unknown))}")
    return results


def axes_of(results):
    """The sweep's axes: the columns between `id` and `status`."""
    columns = list(results.columns)
    return columns[1:columns.index("status")]


def check_axis(results, axis):
    if axis not in axes_of(results):
        raise ValueError(f"no axis '{axis}'; the axes are {', '.join(axes_of(results))}")


def check_metric(metric):
    if metric not in METRICS:
        raise ValueError(f"no metric '{metric}'; the metrics are {', '.join(METRICS)}")


def where(results, conditions):
    """Keeps the rows where each AXIS=VALUE of `conditions` holds."""
    for condition in conditions:
        axis, sep, value = condition.partition("=")
        if not sep:
            raise ValueError(f"--where '{condition}': expected AXIS=VALUE")
        check_axis(results, axis)
        if value not in set(results[axis]):
            raise ValueError(f"--where {condition}: {axis} takes {', '.join(ordered_values(results[axis]))}")
        results = results[results[axis] == value]
    return results


def ordered_values(column):
    """The distinct values of an axis: in numeric order when all are numbers, else in the file's order."""
    values = list(dict.fromkeys(column))
    numbers = [as_number(v) for v in values]
    if all(n is not None for n in numbers):
        return [v for _, v in sorted(zip(numbers, values))]
    return values


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def check_one_row_per(results, axes):
    """Each combination of the plotted axes must name one run: another axis that varies would put two
    runs on one point. Says which axis to fix with --where."""
    for other in axes_of(results):
        if other not in axes and results[other].nunique() > 1:
            values = ", ".join(ordered_values(results[other]))
            raise ValueError(f"{other} varies too ({values}): choose one with --where {other}=VALUE")
    duplicated = results.duplicated(subset=list(axes), keep=False)
    if duplicated.any():
        ids = ", ".join(results[duplicated].id)
        raise ValueError(f"runs {ids} share their {' and '.join(axes)}")


@dataclass
class Line:
    group: str
    x: list  # numbers when the axis is numeric, else its values as text
    y: list


@dataclass
class Curves:
    """Every x value of the selected runs in order (ok or not, so a category axis keeps its places),
    whether they are numbers, one line per group value over the runs whose status is ok, and the rest."""
    x_values: list
    numeric: bool
    lines: list
    left_out: list  # (group, x, status) of the runs that are not ok, in the file's order

    def log_x(self, span=8.0):
        """Whether x is numeric, positive and spans more than `span` times: then a log axis reads better."""
        if not self.numeric or not self.x_values or min(self.x_values) <= 0:
            return False
        return max(self.x_values) / min(self.x_values) > span


def curves(results, x, group, metric, conditions=()):
    """`metric` against `x`, one line per value of `group`, over the runs `conditions` keep."""
    check_axis(results, x)
    check_axis(results, group)
    check_metric(metric)
    results = where(results, conditions)
    check_one_row_per(results, [x, group])
    ok = results[results.status == "ok"]
    x_order = ordered_values(results[x])
    numeric = all(as_number(v) is not None for v in x_order)
    lines = []
    for g in ordered_values(results[group]):
        runs = ok[ok[group] == g].set_index(x)
        xs = [v for v in x_order if v in runs.index]
        lines.append(Line(g, [float(v) if numeric else v for v in xs], [float(runs.at[v, metric]) for v in xs]))
    failed = results[results.status != "ok"]
    left_out = list(zip(failed[group], failed[x], failed.status))
    return Curves([float(v) if numeric else v for v in x_order], numeric, lines, left_out)


@dataclass
class Grid:
    """`values[i][j]` is the metric at y_values[i], x_values[j] (NaN unless ok); `status[i][j]` the run's
    status, or None where the sweep has no such run."""
    x_values: list
    y_values: list
    values: list
    status: list


def grid(results, x, y, metric, conditions=()):
    check_axis(results, x)
    check_axis(results, y)
    check_metric(metric)
    results = where(results, conditions)
    check_one_row_per(results, [x, y])
    xs, ys = ordered_values(results[x]), ordered_values(results[y])
    by_cell = {(r[y], r[x]): r for _, r in results.iterrows()}
    values = [[math.nan] * len(xs) for _ in ys]
    status = [[None] * len(xs) for _ in ys]
    for i, yv in enumerate(ys):
        for j, xv in enumerate(xs):
            run = by_cell.get((yv, xv))
            if run is not None:
                status[i][j] = run["status"]
                if run["status"] == "ok":
                    values[i][j] = float(run[metric])
    return Grid(xs, ys, values, status)
