#!/usr/bin/python3
"""Where the plan's gain over a published layout comes from, from the plans run.py wrote: for each row,
the published layout's contention-free estimate, the best estimate of any schedule on the published
shape (its tp, pp, dp, cp, ep, micro-batch and recomputation), and the plan's best estimate. The first
step is the schedule's part of the gain, the second the shape's. Usage:
    experiments/plan-vs-published/explain.py OUT [--source table1|h100]
Prints two Markdown tables: the rows as run.py wrote them, and the split (estimates, not simulations:
every candidate has one)."""
import argparse
import os

import pandas as pd

SHAPE = ["tp", "pp", "dp", "cp", "ep", "micro_batch", "recompute"]


def layout_text(row):
    chunks = f" v{int(row['chunks'])}" if row["schedule"] == "interleaved" else ""
    return (f"tp{int(row['tp'])} pp{int(row['pp'])} dp{int(row['dp'])} cp{int(row['cp'])} ep{int(row['ep'])} "
            f"mb{int(row['micro_batch'])} {row['schedule']}{chunks} {row['recompute']}")


def explain(plan_csv, published):
    plan = pd.read_csv(plan_csv)
    plan = plan[plan.place.notna()]
    values = published.split()
    numbers = [int(v) for v in values[:6]]
    same_shape = plan
    for column, value in zip(SHAPE, numbers + [values[8]]):
        same_shape = same_shape[same_shape[column] == value]
    exact = same_shape[(same_shape.schedule == values[6]) & (same_shape.chunks == int(values[7]))]
    best = plan.sort_values("estimated_step_s", kind="stable").iloc[0]
    shape_best = same_shape.sort_values("estimated_step_s", kind="stable").iloc[0] if len(same_shape) else None
    return {"published_estimate_s": exact.estimated_step_s.iloc[0] if len(exact) else None,
            "shape_best": layout_text(shape_best) if shape_best is not None else "",
            "shape_best_estimate_s": shape_best.estimated_step_s if shape_best is not None else None,
            "plan_best": layout_text(best), "plan_best_estimate_s": best.estimated_step_s}


def percent(a, b):
    return f"{100 * (a / b - 1):+.1f} %" if a is not None and b is not None and pd.notna(a) and pd.notna(b) else "–"


def place(value, simulated):
    """'3rd' style; 11th of 10 simulated is '11th+': slower than all the plan simulated."""
    if value == "" or pd.isna(value):
        return "not a candidate"
    n = int(value)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}{'+' if simulated and n > 10 else ''}"


def results_table(rows):
    print("| row | published (tp pp dp cp ep mb, schedule) | its step | plan's best | its step | plan / published − 1 "
          "| published's place by estimate | simulated |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows.itertuples():
        print(f"| {r.name} | {r.published} | {r.published_step_s:.3f} s | {r.plan_best} | {r.plan_best_step_s:.3f} s "
              f"| {100 * r.plan_over_published:+.1f} % | {place(r.published_estimated_place, False)} of {r.candidates} "
              f"| {place(r.published_simulated_place, True)} |")
    print()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--source", choices=["table1", "h100"], default="h100")
    a = p.parse_args()
    rows = pd.read_csv(os.path.join(a.out, f"{a.source}.csv"), keep_default_na=False)
    results_table(rows)
    print("| row | published | estimate | best schedule on its shape | vs published | plan's best by estimate "
          "| vs that |")
    print("|---|---|---|---|---|---|---|")
    for r in rows.itertuples():
        e = explain(os.path.join(a.out, r.name, "plan.csv"), r.published)
        published = e["published_estimate_s"]
        print(f"| {r.name} | {r.published} | {published:.3f} s | " if published is not None
              else f"| {r.name} | {r.published} | not a candidate | ", end="")
        print(f"{e['shape_best']} | {percent(e['shape_best_estimate_s'], published)} | {e['plan_best']} | "
              f"{percent(e['plan_best_estimate_s'], e['shape_best_estimate_s'])} |")


if __name__ == "__main__":
    main()
