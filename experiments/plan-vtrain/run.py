#!/usr/bin/python3
"""vTrain's 144 single-node decisions through `pipegrid plan`: for each model, GPU count and global
batch, the plan restricted to the layouts vTrain measured (their TP, PP and micro-batch values, run
as vTrain ran them), and where the measured-best layout lands in the plan's order, and the regret of
the plan's first choice (its measured time over the measured best's). Usage, from the repository root
after `make`:
    experiments/plan-vtrain/run.py OUT [--top K] [--jobs J]
Writes OUT/decisions.csv and prints the summary."""
import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments", "calibration"))
import calibrate  # noqa: E402  (the rows and how vTrain ran them)


def plan_args(group, out, top):
    """The decision's plan: the measured values of each axis, the rest as calibrate.simulate_args runs a row
    (1F1B, full recomputation, fp16 gradients, no gradient overlap, even layer split); one vocabulary, GPT-2's
    padded for t = 8 (51 200), since a plan prices every layout of one model."""
    first = group.iloc[0].astype(int)
    join = lambda column: ",".join(str(v) for v in sorted(group[column].unique()))
    return ["plan", "--platform", calibrate.PLATFORM, "--gpus", str(first.gpus), "--global-batch",
            str(first.global_batch), "--layers", str(first.layers), "--hidden", str(first.hidden), "--heads",
            str(first.heads), "--seq", str(first.seq), "--vocab", str(calibrate.padded_vocab(8)),
            "--space", "tp=" + join("tp"), "--space", "pp=" + join("pp"), "--space", "micro-batch=" + join("micro_batch"),
            "--space", "schedule=1f1b", "--space", "chunks=0", "--space", "recompute=full", "--space", "zero=0",
            "--space", "layer-split=even", "--space", "grad-overlap=off", "--scatter-gather", "--gradient-bytes", "2",
            "--grad-accumulation", "separate", "--optimizer-bytes", str(calibrate.FP16_OPTIMIZER_BYTES),
            "--top", str(top), "--jobs", "1", "--out", out]


def decide(args):
    key, group, out, top, pipegrid = args
    run = subprocess.run([pipegrid] + plan_args(group, out, top), capture_output=True, text=True)
    if run.returncode != 0:
        return key, None, run.stderr.strip().splitlines()[-1] if run.stderr else f"exit {run.returncode}"
    plan = pd.read_csv(os.path.join(out, "plan.csv"))
    plan = plan[plan.place.notna()].sort_values("place")
    measured = {(r.tp, r.pp, r.micro_batch): r.iteration_ms for r in group.itertuples()}
    order = [(int(r.tp), int(r.pp), int(r.micro_batch)) for r in plan.itertuples()]
    order = [k for k in order if k in measured]  # the plan's order of the layouts vTrain measured
    best = min(measured, key=measured.get)
    place = order.index(best) + 1 if best in order else None
    regret = measured[order[0]] / measured[best] - 1 if order else None
    return key, (place, regret, len(measured), len(order)), ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pipegrid", default=os.path.join(ROOT, "build", "pipegrid"))
    a = parser.parse_args()
    rows = calibrate.load_rows()
    work = []
    for key, group in rows.groupby(["hidden", "layers", "gpus", "global_batch"]):
        if len(group) < 2:
            continue
        work.append((key, group, os.path.join(a.out, "h{}-l{}-g{}-b{}".format(*key)), a.top, a.pipegrid))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(decide, work))
    with open(os.path.join(a.out, "decisions.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["hidden", "layers", "gpus", "global_batch", "measured_layouts", "planned_layouts", "place",
                    "regret", "error"])
        for key, r, error in results:
            w.writerow(list(key) + ([r[2], r[3], r[0] if r[0] else "", f"{r[1]:.4f}" if r[1] is not None else ""]
                                    if r else ["", "", "", ""]) + [error])
    places = np.array([r[0] if r and r[0] else 10**6 for _, r, _ in results])
    regrets = np.array([r[1] for _, r, _ in results if r and r[1] is not None])
    print(f"{len(results)} decisions, plan --top {a.top}: measured best first in {np.mean(places == 1):.1%}, "
          f"in the top 3 in {np.mean(places <= 3):.1%}; not planned in {np.sum(places == 10**6)}")
    print(f"regret of the plan's first choice: mean {regrets.mean():.2%}, worst {regrets.max():.2%}")


if __name__ == "__main__":
    main()
