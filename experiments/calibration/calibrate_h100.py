#!/usr/bin/python3
"""Fits the H100's compute-model constants on NVIDIA's published DGX H100 step times, holding out
whole models, and reports the fit. `make calibrate GPU=h100-sxm` runs this.

The data: experiments/h100-recipes/h100_dgxc_benchmarking.csv, 98 step times of NeMo / Megatron-Core
recipes (49 layouts, each in BF16 and FP8) on 8 to 2304 H100s. Each row is timed by pipegrid's
contention-free engine (`pipegrid schedule`, the model priced by the kernel model, the collectives
α-β on a generated DGX H100 platform of the row's size); the contended SimGrid runs of the same
layouts are within +0 … +2.6 % of it (experiments/h100-recipes/README.md), and slow at 2048 GPUs.

The constants are the A100's four (η, τ, η_mem, kernel floor; docs/compute-model.md) and η_fp8, an
FP8 GEMM's full-tile share of the FP8 peak, the same for every model, layout, scale and precision.
The fit moves three of them, η, η_mem and η_fp8 (FREE below says why τ and the floor stay). As calibrate.py does, it works on a surrogate: from one round of runs at θk it takes every
kernel of every stage (summary.json's compute_breakdown), recomputes their times at any θ exactly as
sim/model/kernel_time.cc does (checked to 1e-9), and predicts a row's step as the run's step at θk
scaled by its stages' compute at θ over that at θk. Nelder-Mead minimises the mean squared log error
on the training models; the next round runs pipegrid at the new θ. The errors reported are the last
round's runs, never the surrogate's.

Held out: two of the seven models, all their rows (both precisions, every scale; one model's rows at
different scales are near-copies of each other), drawn by numpy.random.default_rng(2026).
"""
import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from kernel_surrogate import Kernels
from kernel_surrogate import gpu_file_with as trial_gpu_file

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
GPU_FILE = os.path.join(ROOT, "platforms", "gpus", "h100-sxm.toml")
CALIBRATED = os.path.join(ROOT, "platforms", "gpus", "h100-sxm.calibrated.toml")
_spec = importlib.util.spec_from_file_location("recipes", os.path.join(ROOT, "experiments", "h100-recipes",
                                                                       "recipes.py"))
recipes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recipes)

NAMES = ["gemm_efficiency", "wave_seconds", "memory_efficiency", "kernel_floor_seconds", "fp8_gemm_efficiency"]
LOW = np.array([0.3, 0.0, 0.2, 0.0, 0.2])
HIGH = np.array([1.0, 20e-6, 1.0, 200e-6, 1.0])
START = np.array([0.851204, 5.94926e-08, 0.763284, 4.85098e-05, 0.6])  # the A100's fit; η_fp8 a guess
# What NVIDIA's runs can tell apart: how fast the GEMMs run in BF16 and in FP8, and how fast the
# memory-bound kernels stream. τ and the host's floor show only where kernels are a few µs long —
# vTrain's small models on the A100, not these; fitted here they would soak up whatever else a
# model's rows lack, so they keep the A100's values (the same hosts' software issuing the kernels).
FREE = [0, 2, 4]
SEED = 2026
HELD_OUT_MODELS = 2


def load_rows():
    """One row per (layout, precision): 98."""
    rows = []
    for layout in recipes.layouts():
        for precision in ("bf16", "fp8"):
            rows.append({"layout": layout, "model": recipes.NAMES[layout["params_b"]], "gpus": int(layout["gpus"]),
                         "precision": precision, "measured_s": float(layout[precision + "_s"])})
    return rows


def run_all(pipegrid, rows, gpu_file, jobs, folder):
    def one(i):
        row = rows[i]
        out = os.path.join(folder, f"row{i}")
        cmd = [pipegrid, "schedule", *recipes.arguments(row["layout"]), "--precision", row["precision"],
               "--gpu-file", gpu_file, "--format", "json", "--out", out]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"pipegrid failed on row {i} ({row['model']}, {row['gpus']} GPUs, {row['precision']}): "
                     f"{done.stderr.strip()}")
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        return json.loads(done.stdout)["step_time"], summary
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, range(len(rows))))
    return np.array([r[0] for r in results]), [r[1] for r in results]


def gpu_file_with(theta, folder):
    return trial_gpu_file(GPU_FILE, NAMES, theta, folder)


def step_compute(kernels, microbatches):
    """Per row, a function of θ: its compute per step summed over its stages (m micro-batches of
    F + I + W, and the update), on the kernels folded per row."""
    a = kernels.a
    folded = kernels.collapsed(np.where(a["pass"] < 3, microbatches[a["row"].astype(int)], 1.0))
    return lambda theta: folded.stage_passes(theta)[:, 0, 0]


def fit(kernels, microbatches, simulated, theta_k, measured, train):
    stage_compute = step_compute(kernels, microbatches)
    base = stage_compute(theta_k)
    p = kernels.stage_passes(theta_k)  # the fold changes no sum
    unfolded = microbatches * (p[:, :, 0] + p[:, :, 1] + p[:, :, 2]).sum(axis=1) + p[:, :, 3].sum(axis=1)
    if not np.allclose(base, unfolded, rtol=1e-9, atol=0):
        raise SystemExit("the kernels folded per row do not add up to their stages' times")

    low, high = LOW[FREE], HIGH[FREE]

    def unpack(z):
        theta = START.copy()
        theta[FREE] = low + (high - low) / (1 + np.exp(-z))
        return theta

    def pack(theta):
        x = (np.clip(theta[FREE], low + 1e-12, high - 1e-12) - low) / (high - low)
        return np.log(x / (1 - x))

    def loss(z):
        pred = simulated * stage_compute(unpack(z)) / base
        return float(np.mean(np.log(pred[train] / measured[train]) ** 2))

    best = None
    for start in (theta_k, START, np.array([0.6, START[1], 0.6, START[3], 0.5])):
        # An explicit first simplex: scipy's default steps a coordinate at 0 (a constant at the middle
        # of its range) by 0.00025 only, and the search can leave that constant where it started.
        z0 = pack(np.array(start, dtype=float))
        simplex = np.vstack([z0] + [z0 + 0.5 * np.eye(len(z0))[i] for i in range(len(z0))])
        r = minimize(loss, z0, method="Nelder-Mead",
                     options={"maxiter": 6000, "xatol": 1e-7, "fatol": 1e-12, "initial_simplex": simplex})
        if best is None or r.fun < best.fun:
            best = r
    return unpack(best.x)


def errors(pred, measured):
    e = np.abs(pred / measured - 1)
    return {"mape": float(np.mean(e)), "p90": float(np.percentile(e, 90)), "max": float(np.max(e)), "rows": int(len(e))}


def write_constants(theta, report, path):
    held = ", ".join(report["held_out_models"])
    lines = [
        "# The H100's compute-model constants, written by `make calibrate GPU=h100-sxm`",
        f"# (experiments/calibration/calibrate_h100.py) on {datetime.date.today().isoformat()}: fitted on NVIDIA's",
        f"# published DGX H100 step times (experiments/h100-recipes), {report['train_rows']} rows of five models, the same",
        "# constants for every model, layout, scale and precision. The H800, H200 and B200 take them too.",
        f"# Held out: {held} ({report['test_rows']} rows, both precisions, every scale): pipegrid's",
        f"# contention-free step time against the measured one, mean |error| {report['test']['mape']:.2%}, worst"
        f" {report['test']['max']:.2%} (training rows {report['train']['mape']:.2%}).",
        "",
        "# η: a full tile's share of the BF16 tensor-core peak.",
        f"gemm_efficiency = {theta[0]:.6g}",
        "# τ: the fixed cost of each wave of tiles, seconds (the A100's: these runs cannot tell it).",
        f"wave_seconds = {theta[1]:.6g}",
        "# The share of the HBM bandwidth memory-bound kernels reach.",
        f"memory_efficiency = {theta[2]:.6g}",
        "# The host issues at most one kernel per this long (the A100's, as τ).",
        f"kernel_floor_seconds = {theta[3]:.6g}",
        "# η_fp8: an FP8 GEMM's full tile's share of the FP8 tensor-core peak.",
        f"fp8_gemm_efficiency = {theta[4]:.6g}",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def breakdown(frame):
    """Per model and precision: rows, mean |error|, worst |error| (simulated against measured)."""
    out = {}
    for (model, precision), g in frame.groupby(["model", "precision"], sort=False):
        e = (g.simulated_s / g.measured_s - 1).abs()
        out[f"{model} {precision}"] = {"rows": len(g), "mape": float(e.mean()), "max": float(e.max()),
                                       "held_out": bool(g.held_out.iloc[0])}
    return out


def fp8_ratios(frame):
    """Per model: the simulated FP8/BF16 step ratio against the measured one, over its layouts."""
    out = {}
    pivot = frame.pivot_table(index=["model", "layout_id"], columns="precision",
                              values=["measured_s", "simulated_s"])
    for model, g in pivot.groupby(level=0, sort=False):
        measured = g[("measured_s", "fp8")] / g[("measured_s", "bf16")]
        simulated = g[("simulated_s", "fp8")] / g[("simulated_s", "bf16")]
        gap = simulated / measured - 1
        out[model] = {"measured": float(measured.mean()), "simulated": float(simulated.mean()),
                      "worst_gap": float(gap.abs().max())}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pipegrid", default=os.path.join(ROOT, "build", "pipegrid"))
    parser.add_argument("--out", default=os.path.join(HERE, "h100"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=3, help="run-then-fit rounds")
    parser.add_argument("--write", default=CALIBRATED, help="the constants file to write ('' for none)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = load_rows()
    measured = np.array([r["measured_s"] for r in rows])
    models = sorted({r["model"] for r in rows})
    held_out = sorted(np.random.default_rng(SEED).permutation(models)[:HELD_OUT_MODELS])
    test = np.array([r["model"] in held_out for r in rows])
    train = ~test
    microbatches = np.array([int(r["layout"]["global_batch"]) // (int(r["layout"]["dp"]) *
                                                                   int(r["layout"]["micro_batch"])) for r in rows])
    theta = START.copy()
    history = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds + 1):
            simulated, summaries = run_all(args.pipegrid, rows, gpu_file_with(theta, tmp), args.jobs, tmp)
            history.append({"round": round_, "theta": dict(zip(NAMES, map(float, theta))),
                            "train": errors(simulated[train], measured[train]),
                            "test": errors(simulated[test], measured[test])})
            print(f"round {round_}: θ = {dict(zip(NAMES, [float(f'{x:.4g}') for x in theta]))}, mean |error| "
                  f"training {history[-1]['train']['mape']:.2%}, held out {history[-1]['test']['mape']:.2%}",
                  flush=True)
            if round_ == args.rounds:
                break
            kernels = Kernels(summaries)
            kernels.check(theta)
            theta = fit(kernels, microbatches, simulated, theta, measured, train)

    frame = pd.DataFrame({"model": [r["model"] for r in rows], "gpus": [r["gpus"] for r in rows],
                          "layout_id": [i // 2 for i in range(len(rows))],
                          "tp": [r["layout"]["tp"] for r in rows], "pp": [r["layout"]["pp"] for r in rows],
                          "cp": [r["layout"]["cp"] or 1 for r in rows],
                          "precision": [r["precision"] for r in rows], "measured_s": measured,
                          "simulated_s": simulated, "held_out": test})
    frame["error"] = frame.simulated_s / frame.measured_s - 1
    report = {"rows": len(rows), "train_rows": int(train.sum()), "test_rows": int(test.sum()), "seed": SEED,
              "held_out_models": held_out, "constants": dict(zip(NAMES, map(float, theta))),
              "train": errors(simulated[train], measured[train]), "test": errors(simulated[test], measured[test]),
              "per_model_precision": breakdown(frame), "fp8_over_bf16": fp8_ratios(frame), "rounds": history}
    with open(os.path.join(args.out, "fit.json"), "w") as f:
        json.dump(report, f, indent=2)
    frame.drop(columns="layout_id").to_csv(os.path.join(args.out, "predictions.csv"), index=False,
                                           float_format="%.6g")
    if args.write:
        write_constants(theta, report, args.write)

    print("\nconstants: " + ", ".join(f"{n} {v:.4g}" for n, v in zip(NAMES, theta)))
    print(f"held out ({', '.join(held_out)}; {test.sum()} rows): mean |error| {report['test']['mape']:.2%}, "
          f"worst {report['test']['max']:.2%}; training ({train.sum()}): {report['train']['mape']:.2%}, "
          f"worst {report['train']['max']:.2%}")
    print("\nper model and precision (rows, mean |error|, worst):")
    for key, v in report["per_model_precision"].items():
        print(f"  {key}{' (held out)' if v['held_out'] else ''}: {v['rows']}, {v['mape']:.2%}, {v['max']:.2%}")
    print("\nFP8 / BF16 step time, mean over the model's layouts (measured, simulated, worst gap):")
    for model, v in report["fp8_over_bf16"].items():
        print(f"  {model}: {v['measured']:.3f}, {v['simulated']:.3f}, {v['worst_gap']:.2%}")
    print(f"\nwrote {args.out}/fit.json, predictions.csv" + (f", {args.write}" if args.write else ""))


if __name__ == "__main__":
    main()
