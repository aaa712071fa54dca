#!/usr/bin/python3
"""The 1T sweep against the paper: table.py OUT_DIR. One row per run, where each GPU's step goes (from
summary.json: mean compute, idle, exposed TP / DP / p2p communication, as shares of the step), and the
kernel efficiency at which each schedule would give the paper's 163 TFLOP/s per GPU."""
import csv
import json
import pathlib
import statistics
import sys

PAPER_TFLOPS = 163.0  # Narayanan et al. 2021, Table 1: 1T parameters, 3072 GPUs, 52 % of 312 TFLOP/s

out = pathlib.Path(sys.argv[1])
rows = [r for r in csv.DictReader(open(out / "results.csv")) if r["status"] == "ok"]
print("| schedule | kernel efficiency | step (s) | TFLOP/s per GPU | of peak | compute | idle | exposed TP | DP | p2p | peak memory (GiB) | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
by_schedule = {}
for r in rows:
    run = out / "runs" / r["id"]
    summary = json.load(open(run / "summary.json"))
    step = summary["makespan"]
    ranks = summary["ranks"]
    share = lambda values: statistics.mean(values) / step
    exposed = {k: share(x["exposed_comm"][k] for x in ranks) for k in ("tp", "dp", "p2p")}
    memory = max(x["total"] for x in summary["memory"]["ranks"]) / 2**30
    tflops = float(r["tflops_per_gpu"])
    by_schedule.setdefault(r["sim.schedule"], []).append((float(r["model.compute_efficiency"]), tflops))
    wall = float((run / "wall_seconds").read_text())
    print(f"| {r['sim.schedule']} | {float(r['model.compute_efficiency']):.2f} | {step:.1f} | {tflops:.1f} "
          f"| {tflops / 312:.3f} | {share(x['busy'] for x in ranks):.3f} | {share(x['idle'] for x in ranks):.3f} "
          f"| {exposed['tp']:.3f} | {exposed['dp']:.4f} | {exposed['p2p']:.4f} | {memory:.1f} | {wall:.0f} |")

# TFLOP/s grows almost linearly with the efficiency over this range: interpolate between the two
# efficiencies that bracket the paper's number.
print()
for schedule, points in by_schedule.items():
    points.sort()
    for (e0, t0), (e1, t1) in zip(points, points[1:]):
        if t0 <= PAPER_TFLOPS <= t1:
            e = e0 + (e1 - e0) * (PAPER_TFLOPS - t0) / (t1 - t0)
            print(f"{schedule}: {PAPER_TFLOPS:g} TFLOP/s per GPU at a kernel efficiency of {e:.3f}")
            break
    else:
        print(f"{schedule}: {PAPER_TFLOPS:g} TFLOP/s per GPU is outside the efficiencies swept")
