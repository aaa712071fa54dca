#!/usr/bin/python3
"""The 1T sweep against the paper: table.py OUT_DIR. One row per run: where each GPU's step goes (from
summary.json: mean compute, idle, exposed TP / DP / p2p communication, as shares of the step), the
throughput, and its error against the paper's 163 TFLOP/s per GPU (sim / paper - 1)."""
import csv
import json
import pathlib
import statistics
import sys

PAPER_TFLOPS = 163.0  # Narayanan et al. 2021, Table 1: 1T parameters, 3072 GPUs, 52 % of 312 TFLOP/s
A100_PEAK_TFLOPS = 312.0  # dense 16-bit tensor peak, when summary.json does not say

out = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "results.csv")))
print("| schedule | grad accumulation | step (s) | TFLOP/s per GPU | of peak | error vs paper | compute | idle "
      "| exposed TP | DP | p2p | peak memory (GiB) | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["status"] != "ok":
        print(f"| {r['sim.schedule']} | {r['model.grad_accumulation']} | {r['status']}: {r['message']} "
              "| | | | | | | | | | |")
        continue
    run = out / "runs" / r["id"]
    summary = json.load(open(run / "summary.json"))
    step = summary["makespan"]
    ranks = summary["ranks"]
    share = lambda values: statistics.mean(values) / step
    exposed = {k: share(x["exposed_comm"][k] for x in ranks) for k in ("tp", "dp", "p2p")}
    memory = max(x["total"] for x in summary["memory"]["ranks"]) / 2**30
    peak = summary.get("compute_breakdown", {}).get("tensor_flops", A100_PEAK_TFLOPS * 1e12) / 1e12
    tflops = float(r["tflops_per_gpu"])
    wall = float((run / "wall_seconds").read_text())
    print(f"| {r['sim.schedule']} | {r['model.grad_accumulation']} | {step:.1f} | {tflops:.1f} | {tflops / peak:.3f} "
          f"| {tflops / PAPER_TFLOPS - 1:+.3f} | {share(x['busy'] for x in ranks):.3f} "
          f"| {share(x['idle'] for x in ranks):.3f} | {exposed['tp']:.3f} | {exposed['dp']:.4f} "
          f"| {exposed['p2p']:.4f} | {memory:.1f} | {wall:.0f} |")
print(f"\nthe paper: {PAPER_TFLOPS:g} TFLOP/s per GPU ({PAPER_TFLOPS / A100_PEAK_TFLOPS:.3f} of peak)")
