#!/usr/bin/python3
"""The planner against published layouts: each row of Megatron-LM's Table 1 (Narayanan et al., SC'21),
or each layout of NVIDIA's DGX H100 recipes (experiments/h100-recipes), planned on its GPUs and
global batch, without --also, beside the published layout simulated the same way. For each row: the plan's best simulated step against the published layout's, and the published
layout's place in the plan by estimate and by simulated step. Usage, from the repository root after
`make` (the large rows take hours on two cores):
    experiments/plan-vs-published/run.py OUT [--source table1|h100] [--rows …] [--space AXIS=V] [--jobs J] [--top K]
Writes OUT/table1.csv or OUT/h100.csv, a row as each plan ends (a rerun resumes after the last)."""
import argparse
import json
import os
import subprocess
import sys

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE1 = os.path.join(ROOT, "experiments", "megatron-table1")
PLATFORM = os.path.join(ROOT, "platforms", "superpod-a100-384node.xml")
# What the 2021 software did, the same for every layout the plan tries (experiments/megatron-table1).
SOFTWARE = ["--scatter-gather", "--gradient-bytes", "2", "--optimizer-bytes", "50", "--grad-accumulation", "separate",
            "--tp-comm", "analytic", "--dp-comm", "flow"]
# Gradients reduced in BF16 where NeMo's recipe says so (optim.grad_sync_dtype: bf16, NVIDIA/NeMo-Framework-Launcher
# launcher_scripts/conf/training/nemotron/nemotron_340b.yaml); the others keep the FP32 default. Applied to the
# plan and the published layout alike.
GRADIENTS = {"340": ["--gradient-bytes", "2"]}
KEY = ["tp", "pp", "dp", "cp", "ep", "micro_batch", "schedule", "chunks", "recompute"]
sys.path.insert(0, os.path.join(ROOT, "experiments", "h100-recipes"))
import recipes  # noqa: E402  (NVIDIA's H100 rows and the flags that describe them)


def model_args(paper):
    return ["--layers", str(paper.num_layers), "--hidden", str(paper.hidden_size), "--heads",
            str(paper.attention_heads), "--seq", str(paper.seq_len), "--vocab", str(paper.vocab)]


def table1_cases(wanted):
    """Megatron Table 1: (name, plan arguments, published key, published simulate arguments)."""
    layouts = pd.read_csv(os.path.join(TABLE1, "layouts.csv"))
    papers = pd.read_csv(os.path.join(TABLE1, "paper_table1.csv"))
    whole = ["attention_heads", "hidden_size", "num_layers", "num_gpus", "seq_len", "vocab"]
    papers[whole] = papers[whole].astype(int)
    for layout in layouts.itertuples():
        if wanted and f"{layout.params_billion:g}" not in wanted:
            continue
        paper = next(papers[papers.params_billion == layout.params_billion].itertuples())
        schedule = "interleaved" if layout.chunks > 1 else "1f1b"
        chunks = layout.chunks if layout.chunks > 1 else 0
        key = (layout.tp, layout.pp, layout.dp, 1, 1, 1, schedule, chunks, "full")
        common = model_args(paper) + SOFTWARE
        plan = ["--platform", PLATFORM, "--gpus", str(paper.num_gpus), "--global-batch", str(layout.global_batch)]
        simulate = ["--platform", PLATFORM, "--schedule", schedule, "--chunks", str(chunks), "--tp", str(layout.tp),
                    "--pp", str(layout.pp), "--dp", str(layout.dp), "--micro-batch", "1", "--microbatches",
                    str(layout.global_batch // layout.dp), "--recompute", "full",
                    "--grad-overlap", "on" if layout.ddp == "torch" else "off"]
        yield f"{layout.params_billion:g}b", plan + common, key, simulate + common


def h100_cases(wanted):
    """NVIDIA's DGX H100 recipes, each layout once in BF16, with the recipes' software (flash
    attention, the distributed optimizer; TP's communication overlapped is searched, as is the rest).
    The whole 80 GiB is offered, not the plan's default less 5 GiB: the published runs fit in it, and
    some (Llama 3.1 8B on 8 GPUs) need more than 75 GiB by the memory model."""
    for row in recipes.layouts():
        name = f"h100-{row['params_b']}b-{row['gpus']}gpu"
        if wanted and name not in wanted:
            continue
        tp, pp, dp, cp = (int(row[c] or 1) for c in ("tp", "pp", "dp", "cp"))
        chunks = recipes.interleave_chunks(row)
        schedule = "interleaved" if chunks > 1 else "1f1b"
        recompute = "selective" if row["recompute"].startswith("selective") else "none"
        key = (tp, pp, dp, cp, int(row["ep"] or 1), int(row["micro_batch"]), schedule, chunks if chunks > 1 else 0,
               recompute)
        model = recipes.MODELS[row["params_b"]] + ["--layers", row["layers"], "--seq", row["seq"], "--flash-attention"]
        model += GRADIENTS.get(row["params_b"], [])
        plan = ["--preset", "dgx-h100", "--nodes", str(max(1, int(row["gpus"]) // 8)), "--global-batch",
                row["global_batch"], "--space", "tp-comm-overlap=off,on", "--memory", "80"]
        yield name, plan + model, key, recipes.arguments(row) + GRADIENTS.get(row["params_b"], [])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--source", choices=["table1", "h100"], default="table1")
    p.add_argument("--rows", help="names, comma-separated: 1.7,3.6,… (Table 1) or h100-70b-512gpu,… (default: all)")
    p.add_argument("--space", action="append", default=[], help="passed on to plan (e.g. zero=0)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--pipegrid", default=os.path.join(ROOT, "build", "pipegrid"))
    a = p.parse_args()
    wanted = set(a.rows.split(",")) if a.rows else set()
    cases = table1_cases(wanted) if a.source == "table1" else h100_cases(wanted)
    os.makedirs(a.out, exist_ok=True)
    table = os.path.join(a.out, f"{a.source}.csv")
    rows = pd.read_csv(table).to_dict("records") if os.path.exists(table) else []
    # Two recipes may give one cluster (GPT-3 175B on 128 GPUs with 12 and with 6 chunks): one plan, two rows.
    done = {(r["name"], r["published"]) for r in rows}
    for name, plan_args, key, simulate_args in cases:
        if (name, " ".join(str(k) for k in key)) in done:  # a long table resumes where it stopped
            continue
        plan_dir = os.path.join(a.out, name)
        space = [x for s in a.space for x in ("--space", s)]
        subprocess.run([a.pipegrid, "plan", *plan_args, *space, "--top", str(a.top), "--jobs", str(a.jobs), "--out",
                        plan_dir], check=True, stdout=subprocess.DEVNULL)
        # The published layout as the plan would run it: its stages balanced by time as the plan's are.
        run = subprocess.run([a.pipegrid, "simulate", *simulate_args, "--layer-split", "balanced", "--trace", "off",
                              "--format", "json"], capture_output=True, text=True, check=True)
        published_step = json.loads(run.stdout)["makespan"]
        plan = pd.read_csv(os.path.join(plan_dir, "plan.csv"))
        placed = plan[plan.place.notna()].copy()
        placed["key"] = list(zip(*(placed[c] for c in KEY)))
        estimated = placed.sort_values("estimated_step_s", kind="stable").reset_index(drop=True)
        found = estimated.index[estimated.key == key]
        simulated = placed[placed.stage == "simulated"].simulated_step_s
        best = simulated.min()
        rows.append({"name": name, "published": " ".join(str(k) for k in key), "published_step_s": published_step,
                     "plan_best": " ".join(str(placed.iloc[0][c]) for c in KEY), "plan_best_step_s": best,
                     "plan_over_published": best / published_step - 1,
                     "published_estimated_place": int(found[0]) + 1 if len(found) else "",
                     "published_simulated_place": int((simulated < published_step).sum()) + 1,
                     "candidates": len(placed)})
        print(rows[-1], flush=True)
        pd.DataFrame(rows).to_csv(table, index=False)


if __name__ == "__main__":
    main()
