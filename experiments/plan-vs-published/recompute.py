#!/usr/bin/python3
"""How much of the plan's gain over Megatron's Table 1 is full recomputation alone: each published
layout simulated as published (full recomputation) and without recomputation, nothing else changed,
and whether the second fits in the GPU by the memory model. Usage, from the repository root after
`make` (the large rows take minutes each on two cores):
    experiments/plan-vs-published/recompute.py OUT [--rows 1.7,3.6,…] [--zero 0|1]
Writes OUT/recompute.csv, a row as each layout ends (a rerun resumes after the last)."""
import argparse
import json
import os
import subprocess

import pandas as pd

import run  # the Table 1 rows as run.py plans them

GIB = 2**30


def simulate(pipegrid, arguments):
    """(step seconds, fullest rank's peak GiB, GPU capacity GiB) of one simulation."""
    done = subprocess.run([pipegrid, "simulate", *arguments, "--layer-split", "balanced", "--trace", "off",
                           "--format", "json"], capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    ranks = summary["memory"]["ranks"]
    return summary["makespan"], max(r["total"] for r in ranks) / GIB, ranks[0]["capacity"] / GIB


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--rows", help="1.7,3.6,… (default: all ten)")
    p.add_argument("--zero", default="0", help="ZeRO stage of both runs (Table 1's runs had none)")
    p.add_argument("--pipegrid", default=os.path.join(run.ROOT, "build", "pipegrid"))
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    table = os.path.join(a.out, "recompute.csv")
    rows = pd.read_csv(table).to_dict("records") if os.path.exists(table) else []
    done = {r["name"] for r in rows}
    wanted = set(a.rows.split(",")) if a.rows else set()
    for name, _, _, published in run.table1_cases(wanted):
        if name in done:
            continue
        published = published + ["--zero", a.zero]
        full_step, full_peak, capacity = simulate(a.pipegrid, published)
        at = published.index("--recompute")
        none_step, none_peak, _ = simulate(a.pipegrid, published[:at + 1] + ["none"] + published[at + 2:])
        rows.append({"name": name, "zero": a.zero, "full_step_s": full_step, "full_peak_gib": full_peak,
                     "none_step_s": none_step, "none_peak_gib": none_peak, "capacity_gib": capacity,
                     "none_fits": none_peak <= capacity, "none_over_full": none_step / full_step - 1})
        print(rows[-1], flush=True)
        pd.DataFrame(rows).to_csv(table, index=False)


if __name__ == "__main__":
    main()
