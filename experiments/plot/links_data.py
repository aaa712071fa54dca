#!/usr/bin/python3
"""The data behind links_heatmap.py, kept apart from the drawing so that tests can check it: a run's
links.csv and links_timeline.csv (written with --link-timeline) read as one row per link and direction,
the links to show (the busiest by peak utilisation, or all), grouped by class, and their utilisation per
window: bytes / (bandwidth × window)."""
from dataclasses import dataclass
import json
import pathlib

import numpy as np
import pandas as pd

LINK_COLUMNS = ["link", "class", "bandwidth", "bytes", "analytic_bytes", "peak_utilization",
                "mean_utilization_busy", "direction"]
TIMELINE_COLUMNS = ["link", "direction", "window_start", "bytes"]


def _read(path, columns):
    table = pd.read_csv(path, dtype={"link": str, "class": str, "direction": str}, keep_default_na=False)
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)} (columns: {','.join(table.columns)})")
    return table


def name_of(link, direction):
    """A row's name: the link, with its direction when it has one (a SPLITDUPLEX link's UP or DOWN)."""
    return f"{link} {direction}" if direction else link


def window_of(run_dir):
    """The run's --link-window, from the summary.json beside its links.csv."""
    summary = pathlib.Path(run_dir) / "summary.json"
    if not summary.exists():
        raise ValueError(f"{summary}: not found; give --window")
    return float(json.loads(summary.read_text())["inputs"]["options"]["link_window"])


@dataclass
class Heat:
    names: list        # one per row, busiest class first, busiest link first within its class
    classes: list      # each row's link class
    starts: np.ndarray  # window starts, seconds: one column per window from 0 to the last with bytes
    utilization: np.ndarray  # rows × windows: bytes / (bandwidth × window)
    total_links: int


def heat(links_csv, timeline_csv, window, top=20):
    """The links to draw and their utilisation per window. `top`: the `top` links of highest peak
    utilisation (then bytes), or every link when None; rows grouped by class, the class of the busiest
    link first, and within a class by peak utilisation, then bytes, then name."""
    links = _read(links_csv, LINK_COLUMNS)
    timeline = _read(timeline_csv, TIMELINE_COLUMNS)
    links["name"] = [name_of(l, d) for l, d in zip(links.link, links.direction)]
    ranked = links.sort_values(["peak_utilization", "bytes", "name"], ascending=[False, False, True], kind="stable")
    chosen = ranked if top is None else ranked.head(top)
    class_rank = {c: i for i, c in enumerate(dict.fromkeys(chosen["class"]))}
    chosen = chosen.assign(class_rank=[class_rank[c] for c in chosen["class"]])
    chosen = chosen.sort_values(["class_rank", "peak_utilization", "bytes", "name"],
                                ascending=[True, False, False, True], kind="stable")
    row_of = {name: i for i, name in enumerate(chosen.name)}
    windows = np.rint(timeline.window_start.to_numpy(dtype=float) / window).astype(int)
    count = int(windows.max()) + 1 if len(windows) else 1
    values = np.zeros((len(chosen), count))
    bandwidth = dict(zip(chosen.name, chosen.bandwidth.astype(float)))
    for name, k, carried in zip((name_of(l, d) for l, d in zip(timeline.link, timeline.direction)), windows,
                                timeline.bytes.astype(float)):
        if name in row_of:
            values[row_of[name], k] += carried / (bandwidth[name] * window)
    return Heat(list(chosen.name), list(chosen["class"]), np.arange(count) * window, values, len(links))
