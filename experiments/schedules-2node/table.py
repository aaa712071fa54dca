"""Prints the side-by-side table of experiments/schedules-2node from the runs' summary.json files."""
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
rows = []
for summary_file in sorted(out.glob("*/summary.json")):
    s = json.loads(summary_file.read_text())
    gpus = s["gpus"]
    p2p = sum(g["exposed_comm"]["p2p"] for g in gpus) / len(gpus)
    memory = s["memory"]["ranks"]
    peak = max(memory, key=lambda r: r["total"])
    # Peak activations in units of one micro-batch on a rank's share of the model (a ZB-V or DualPipeV
    # virtual stage is half of one; a DualPipe virtual stage is a whole one, held twice).
    share = memory[0]["parameters_share"]
    activations = max(r["peak_activations"] * share / len(r["stages"]) for r in memory)
    rows.append((s["makespan"], s["inputs"]["schedule"], s["bubble_fraction"], p2p,
                 peak["total"] / 1e9, peak["rank"], activations, share, len(s["memory"]["over_capacity"])))
print("| schedule | step time (s) | bubble | exposed p2p per GPU (s) | peak memory per GPU (GB, rank) "
      "| peak activations (micro-batches) | parameters per rank | ranks over capacity |")
print("|---|---|---|---|---|---|---|---|")
for step, name, bubble, p2p, peak_gb, peak_rank, activations, params, over in sorted(rows):
    print(f"| {name} | {step:.3f} | {bubble:.3f} | {p2p:.4f} | {peak_gb:.1f} (rank {peak_rank}) | {activations} "
          f"| {params:g}× | {over} |".replace(f"| {activations} |", f"| {activations:g} |"))
