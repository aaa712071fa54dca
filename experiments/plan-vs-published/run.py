#!/usr/bin/python3
"""The planner against published layouts: each row of Megatron-LM's Table 1 (Narayanan et al., SC'21)
planned on its GPUs and global batch, without --also, beside the published layout simulated the same
way. For each row: the plan's best simulated step against the published layout's, and the published
layout's place in the plan by estimate and by simulated step. Usage, from the repository root after
`make` (the large rows take hours on two cores):
    experiments/plan-vs-published/run.py OUT [--rows 1.7,3.6,…] [--jobs J] [--top K]
Writes OUT/table1.csv."""
import argparse
import csv
import json
import os
import subprocess

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE1 = os.path.join(ROOT, "experiments", "megatron-table1")
PLATFORM = os.path.join(ROOT, "platforms", "superpod-a100-384node.xml")
# What the 2021 software did, the same for every layout the plan tries (experiments/megatron-table1).
SOFTWARE = ["--scatter-gather", "--gradient-bytes", "2", "--optimizer-bytes", "50", "--grad-accumulation", "separate",
            "--tp-comm", "analytic", "--dp-comm", "flow"]
KEY = ["tp", "pp", "dp", "micro_batch", "schedule", "chunks", "recompute"]


def model_args(paper):
    return ["--layers", str(paper.num_layers), "--hidden", str(paper.hidden_size), "--heads",
            str(paper.attention_heads), "--seq", str(paper.seq_len), "--vocab", str(paper.vocab)]


def published(layout, paper):
    """The published layout as plan.csv writes a row's key, and its simulate arguments."""
    schedule = "interleaved" if layout.chunks > 1 else "1f1b"
    chunks = layout.chunks if layout.chunks > 1 else 0
    key = (layout.tp, layout.pp, layout.dp, 1, schedule, chunks, "full")
    args = ["simulate", "--platform", PLATFORM, "--schedule", schedule, "--chunks", str(chunks), "--tp",
            str(layout.tp), "--pp", str(layout.pp), "--dp", str(layout.dp), "--micro-batch", "1", "--microbatches",
            str(layout.global_batch // layout.dp), "--recompute", "full", "--layer-split", "balanced",
            "--grad-overlap", "on" if layout.ddp == "torch" else "off", "--trace", "off", "--format", "json"]
    return key, args + model_args(paper) + SOFTWARE


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--rows", help="params_billion values, comma-separated (default: all ten)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--pipegrid", default=os.path.join(ROOT, "build", "pipegrid"))
    a = p.parse_args()
    layouts = pd.read_csv(os.path.join(TABLE1, "layouts.csv"))
    papers = pd.read_csv(os.path.join(TABLE1, "paper_table1.csv"))
    whole = ["attention_heads", "hidden_size", "num_layers", "num_gpus", "seq_len", "vocab"]
    papers[whole] = papers[whole].astype(int)
    wanted = [float(x) for x in a.rows.split(",")] if a.rows else list(layouts.params_billion)
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for layout in layouts.itertuples():
        if layout.params_billion not in wanted:
            continue
        paper = next(papers[papers.params_billion == layout.params_billion].itertuples())
        name = f"{layout.params_billion:g}b"
        plan_dir = os.path.join(a.out, name)
        subprocess.run([a.pipegrid, "plan", "--platform", PLATFORM, "--gpus", str(paper.num_gpus), "--global-batch",
                        str(layout.global_batch), "--top", str(a.top), "--jobs", str(a.jobs), "--out", plan_dir]
                       + model_args(paper) + SOFTWARE, check=True, stdout=subprocess.DEVNULL)
        key, args = published(layout, paper)
        run = subprocess.run([a.pipegrid] + args, capture_output=True, text=True, check=True)
        published_step = json.loads(run.stdout)["makespan"]
        plan = pd.read_csv(os.path.join(plan_dir, "plan.csv"))
        placed = plan[plan.place.notna()].copy()
        placed["key"] = list(zip(*(placed[c] for c in KEY)))
        mine = placed[placed.key == key]
        estimated = placed.sort_values("estimated_step_s").reset_index(drop=True)
        est_place = int(estimated.index[estimated.key == key][0]) + 1 if len(mine) else None
        simulated = placed[placed.stage == "simulated"].simulated_step_s
        best = simulated.min()
        rows.append({"params_billion": layout.params_billion, "gpus": paper.num_gpus,
                     "published": " ".join(str(k) for k in key), "published_step_s": published_step,
                     "plan_best": " ".join(str(placed.iloc[0][c]) for c in KEY), "plan_best_step_s": best,
                     "plan_over_published": best / published_step - 1,
                     "published_estimated_place": est_place or "",
                     "published_simulated_place": int((simulated < published_step).sum()) + 1,
                     "candidates": len(placed)})
        print(rows[-1], flush=True)
    with open(os.path.join(a.out, "table1.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
