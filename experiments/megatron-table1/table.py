#!/usr/bin/python3
"""OUT/table.csv from the ten runs of run.sh: the paper's TFLOP/s per GPU against the simulated ones.

Both sides count FLOPs the paper's way (§5.1): 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) per iteration with
full recomputation and V = 51 200, over the GPUs and the iteration time.
"""
import csv
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
paper = {r["params_billion"]: r for r in csv.DictReader(open(os.path.join(here, "paper_table1.csv")))}
rows = []
for layout in csv.DictReader(open(os.path.join(here, "layouts.csv"))):
    p = paper[layout["params_billion"]]
    B, s, l, h, V = (int(p[k]) for k in ("global_batch_size", "seq_len", "num_layers", "hidden_size", "vocab"))
    flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
    summary = json.load(open(os.path.join(out, layout["params_billion"], "summary.json")))
    step = summary["makespan"]
    sim = flops / int(p["num_gpus"]) / step / 1e12
    rows.append({"params_billion": layout["params_billion"], "tflops_per_gpu_paper": p["achieved_tflops_per_gpu"],
                 "tflops_per_gpu_sim": f"{sim:.1f}", "error": f"{sim / float(p['achieved_tflops_per_gpu']) - 1:+.3f}"})
with open(os.path.join(out, "table.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
errors = [abs(float(r["error"])) for r in rows]
print(open(os.path.join(out, "table.csv")).read(), end="")
print(f"mean |error| {sum(errors) / len(errors):.1%}, worst {max(errors):.1%}")
