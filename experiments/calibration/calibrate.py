#!/usr/bin/python3
"""Fits the compute model's constants for the A100 on measured Megatron runs, and reports the fit.

`make calibrate` runs this. The data: vTrain's 1440 iteration times measured on one DGX A100 node
(data/README.md). Each row is simulated by pipegrid itself (`pipegrid simulate`, the row's layout on
platforms/dgx-a100-1node.xml); the fit moves four constants of platforms/gpus/a100-80gb.toml's GPU —
gemm_efficiency, wave_seconds, memory_efficiency, kernel_floor_seconds — the same for every row.

How: a simulation per row per trial is too slow for an optimiser, so the fit works on a surrogate
that pipegrid's own output pins down. From one round of simulations at constants θk it takes every
kernel of every stage (summary.json's compute_breakdown: shapes, bytes), recomputes their times at
any θ exactly as sim/model/kernel_time.cc does (checked against pipegrid's to 1e-9), and predicts a
row's iteration as the 1F1B compute of its stages plus the optimizer plus what the simulation added
at θk (communication, the pipeline's exact shape). Nelder-Mead minimises the mean squared log error
on four fifths of the rows; the next round simulates at the new θ. The error reported is that of the
last round's simulations, on the fifth held out, never the surrogate's.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.stats import spearmanr

from kernel_surrogate import Kernels
from kernel_surrogate import gpu_file_with as trial_gpu_file

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(HERE, "data", "vtrain_single_node_a100.csv")
GPU_FILE = os.path.join(ROOT, "platforms", "gpus", "a100-80gb.toml")
CALIBRATED = os.path.join(ROOT, "platforms", "gpus", "a100-80gb.calibrated.toml")
PLATFORM = os.path.join(ROOT, "platforms", "dgx-a100-1node.xml")

NAMES = ["gemm_efficiency", "wave_seconds", "memory_efficiency", "kernel_floor_seconds"]
LOW = np.array([0.3, 0.0, 0.2, 0.0])
HIGH = np.array([1.0, 20e-6, 1.0, 200e-6])
SEED = 2026          # the held-out fifth: numpy's default_rng(SEED).permutation of the rows
GPT2_VOCAB = 50257   # vTrain's vocabulary (its vTrainConfig default), GPT-2's BPE
FP16_OPTIMIZER_BYTES = 50  # Adam's 42 bytes per parameter plus fp16's unscale and inf check (docs/compute-model.md)


# Qi et al., "Zero Bubble Pipeline Parallelism" (ICLR 2024), Table 6: profiled weight-gradient time
# T_W (ms) of one stage and micro-batch on A100, mean over the paper's three micro-batch counts, and
# the settings of its Table 3: layers, hidden, micro-batch, pipeline size; sequence 1024, no TP. The
# paper counts the embedding and the head as a layer each, so a middle stage holds (l + 2)/p layers.
# W is the weight-gradient GEMMs alone (and their bias sums): a direct measurement of how fast large
# GEMMs run, which vTrain's small ones (h ≤ 2048) cannot pin down.
ZB_WEIGHT_PASSES = [  # (name, layers, hidden, micro_batch, pp, T_W seconds)
    ("1.5B", 22, 2304, 6, 8, (9.337 + 9.331 + 9.321) / 3e3),
    ("6.2B", 30, 4096, 3, 8, (19.927 + 19.530 + 19.388) / 3e3),
    ("14.6B", 46, 5120, 1, 16, (8.132 + 8.101 + 8.109) / 3e3),
    ("28.3B", 62, 6144, 1, 32, (7.715 + 7.703 + 7.698) / 3e3),
]
ZB_WEIGHT = 0.25  # the four passes' share of the loss; vTrain's 1152 training rows have the rest


def zb_args(layers, hidden, micro_batch, pp, gpu_file):
    """One ZB model on enough A100s to hold its pipeline; only stage 1's W kernels are used. The head
    count does not change a weight gradient: h/128."""
    platform = PLATFORM if pp <= 8 else os.path.join(ROOT, "platforms", "superpod-a100-384node.xml")
    return ["simulate", "--platform", platform, "--schedule", "1f1b", "--pp", str(pp), "--microbatches", str(pp),
            "--layers", str(layers), "--uneven-layers", "--hidden", str(hidden), "--heads", str(hidden // 128),
            "--seq", "1024", "--vocab", "50304", "--micro-batch", str(micro_batch), "--trace", "off",
            "--tp-comm", "off", "--dp-comm", "off", "--format", "json", "--gpu-file", gpu_file]


def load_rows():
    rows = pd.read_csv(DATA, encoding="utf-8-sig")
    rows.columns = ["gpus", "global_batch", "micro_batch", "hidden", "heads", "layers", "seq", "tp", "dp", "pp",
                    "iteration_ms"]
    rows["microbatches"] = rows.global_batch // (rows.dp * rows.micro_batch)
    return rows


def padded_vocab(tp):
    """Megatron pads the vocabulary to a multiple of 128·t (--make-vocab-size-divisible-by 128)."""
    step = 128 * tp
    return (GPT2_VOCAB + step - 1) // step * step


def simulate_args(row, gpu_file):
    """The row as Megatron-DeepSpeed ran it (data/README.md): 1F1B, full recomputation, fp16, no
    gradient bucketing (the reduction after the backward), scatter/gather between stages."""
    return ["simulate", "--platform", PLATFORM, "--schedule", "1f1b", "--tp", str(row.tp), "--pp", str(row.pp),
            "--dp", str(row.dp), "--microbatches", str(row.microbatches), "--layers", str(row.layers),
            "--hidden", str(row.hidden), "--heads", str(row.heads), "--seq", str(row.seq),
            "--vocab", str(padded_vocab(row.tp)), "--micro-batch", str(row.micro_batch), "--recompute", "full",
            "--scatter-gather", "--grad-overlap", "off", "--gradient-bytes", "2", "--grad-accumulation", "separate",
            "--optimizer-bytes", str(FP16_OPTIMIZER_BYTES), "--trace", "off", "--format", "json"] + \
           (["--gpu-file", gpu_file] if gpu_file else [])


def run_all(pipegrid, rows, extra, jobs, gpu_file=None):
    def one(row):
        out = subprocess.run([pipegrid] + simulate_args(row, gpu_file) + extra, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"pipegrid failed on row {row.Index}: {out.stderr.strip()}")
        return json.loads(out.stdout)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, rows.itertuples()))


def gpu_file_with(theta, folder):
    return trial_gpu_file(GPU_FILE, NAMES, theta, folder)


def surrogate_compute(passes, rows):
    """1F1B's compute: the slowest stage's m − 1 micro-batches plus one through every stage, then the update."""
    slot = passes[:, :, 0] + passes[:, :, 1] + passes[:, :, 2]
    m = rows.microbatches.to_numpy()
    return (m - 1) * slot.max(axis=1) + slot.sum(axis=1) + passes[:, :, 3].max(axis=1)


def fit(kernels, rows, measured, residual, train, theta0, zb=None):
    def unpack(z):
        return LOW + (HIGH - LOW) / (1 + np.exp(-z))

    def pack(theta):
        x = (np.clip(theta, LOW + 1e-12, HIGH - 1e-12) - LOW) / (HIGH - LOW)
        return np.log(x / (1 - x))

    def loss(z):
        pred = surrogate_compute(kernels.stage_passes(unpack(z)), rows) + residual
        pred = np.maximum(pred, 1e-9)
        rows_loss = float(np.mean(np.log(pred[train] / measured[train]) ** 2))
        if zb is None:
            return rows_loss
        zb_kernels, zb_measured = zb
        w = zb_kernels.stage_passes(unpack(z))[:, 1, 2]
        return (1 - ZB_WEIGHT) * rows_loss + ZB_WEIGHT * float(np.mean(np.log(w / zb_measured) ** 2))

    best = None
    starts = [theta0, np.array([0.8, 1e-6, 0.7, 30e-6]), np.array([0.6, 5e-6, 0.5, 80e-6])]
    for start in starts:
        r = minimize(loss, pack(np.array(start, dtype=float)), method="Nelder-Mead",
                     options={"maxiter": 4000, "xatol": 1e-6, "fatol": 1e-10})
        if best is None or r.fun < best.fun:
            best = r
    return unpack(best.x)


def zb_passes(pipegrid, gpu_file):
    summaries = []
    for _, layers, hidden, micro_batch, pp, _ in ZB_WEIGHT_PASSES:
        out = subprocess.run([pipegrid] + zb_args(layers, hidden, micro_batch, pp, gpu_file), capture_output=True,
                             text=True)
        if out.returncode != 0:
            sys.exit(f"pipegrid failed on a ZB model: {out.stderr.strip()}")
        summaries.append(json.loads(out.stdout))
    return Kernels(summaries), np.array([w for *_, w in ZB_WEIGHT_PASSES])


def errors(pred, measured):
    e = np.abs(pred / measured - 1)
    return {"mape": float(np.mean(e)), "p90": float(np.percentile(e, 90)), "max": float(np.max(e))}


def ranking(rows, pred, measured):
    """Per model size (h, l): Spearman's ρ of simulated against measured time over its layouts; and per
    decision (a model, a GPU count and a global batch: the layouts a user chooses among), where the
    measured-best layout lands in the simulated order."""
    per_size = {}
    for (h, l), g in rows.groupby(["hidden", "layers"]):
        rho = spearmanr(pred[g.index], measured[g.index]).correlation
        per_size[f"h{h}-l{l}"] = float(rho)
    places = []
    for _, g in rows.groupby(["hidden", "layers", "gpus", "global_batch"]):
        if len(g) < 2:
            continue
        order = g.index[np.argsort(pred[g.index], kind="stable")]
        best = g.index[np.argmin(measured[g.index])]
        places.append(int(np.where(order == best)[0][0]) + 1)
    places = np.array(places)
    return per_size, {"decisions": len(places), "best_is_first": float(np.mean(places == 1)),
                      "best_in_top3": float(np.mean(places <= 3)), "mean_place": float(np.mean(places))}


def write_constants(theta, report, path):
    today = datetime.date.today().isoformat()
    lines = [
        "# The A100's compute-model constants, written by `make calibrate` (experiments/calibration/calibrate.py)",
        f"# on {today}: fitted on {report['train_rows']} of vTrain's {report['rows']} measured single-node runs",
        "# (experiments/calibration/data) and the Zero Bubble paper's four profiled weight-gradient passes,",
        "# the same for every model and layout.",
        f"# Held-out fifth ({report['test_rows']} rows, seed {SEED}), pipegrid's simulated iteration time against the",
        f"# measured one: MAPE {report['test']['mape']:.2%}, p90 {report['test']['p90']:.2%}, max {report['test']['max']:.2%}"
        f" (training rows: MAPE {report['train']['mape']:.2%}).",
        "",
        "# η: a full tile's share of the tensor-core peak.",
        f"gemm_efficiency = {theta[0]:.6g}",
        "# τ: the fixed cost of each wave of tiles, seconds.",
        f"wave_seconds = {theta[1]:.6g}",
        "# The share of the HBM bandwidth memory-bound kernels reach.",
        f"memory_efficiency = {theta[2]:.6g}",
        "# The host issues at most one kernel per this long (eager PyTorch: Python, autograd, the launch).",
        f"kernel_floor_seconds = {theta[3]:.6g}",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pipegrid", default=os.path.join(ROOT, "build", "pipegrid"))
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "calibration"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=2, help="simulate-then-fit rounds")
    parser.add_argument("--write", default=CALIBRATED, help="the constants file to write ('' for none)")
    parser.add_argument("--no-zb", action="store_true", help="fit on vTrain's rows alone")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = load_rows()
    measured = rows.iteration_ms.to_numpy() / 1e3
    order = np.random.default_rng(SEED).permutation(len(rows))
    test = np.sort(order[: len(rows) // 5])
    train = np.sort(order[len(rows) // 5:])

    with open(CALIBRATED) as f:
        current = {}
        for line in f:
            if "=" in line and not line.lstrip().startswith("#"):
                key, value = line.split("=", 1)
                current[key.strip()] = float(value)
    theta = np.array([current[n] for n in NAMES])
    history = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds + 1):
            summaries = run_all(args.pipegrid, rows, [], args.jobs, gpu_file_with(theta, tmp))
            simulated = np.array([s["makespan"] for s in summaries])
            history.append({"round": round_, "theta": dict(zip(NAMES, map(float, theta))),
                            "train": errors(simulated[train], measured[train]),
                            "test": errors(simulated[test], measured[test])})
            print(f"round {round_}: θ = {dict(zip(NAMES, [float(f'{x:.4g}') for x in theta]))}, simulated MAPE "
                  f"train {history[-1]['train']['mape']:.2%}, held out {history[-1]['test']['mape']:.2%}", flush=True)
            if round_ == args.rounds:
                break
            kernels = Kernels(summaries)
            check = kernels.check(theta)
            residual = simulated - surrogate_compute(check, rows)
            zb = None if args.no_zb else zb_passes(args.pipegrid, gpu_file_with(theta, tmp))
            theta = fit(kernels, rows, measured, residual, train, theta, zb)
        zb_final = zb_passes(args.pipegrid, gpu_file_with(theta, tmp))
        zb_simulated = zb_final[0].stage_passes(theta)[:, 1, 2]

    # The old model for comparison: one efficiency for every FLOP, set so that the median row is right.
    efficiency = 0.3
    for _ in range(2):
        old = np.array([s["makespan"] for s in run_all(args.pipegrid, rows, ["--compute-efficiency",
                                                                               f"{efficiency:.6g}"], args.jobs)])
        efficiency = min(1.0, efficiency * float(np.median(old / measured)))
    old = np.array([s["makespan"] for s in run_all(args.pipegrid, rows, ["--compute-efficiency",
                                                                           f"{efficiency:.6g}"], args.jobs)])

    size_rho, decisions = ranking(rows, simulated, measured)
    old_rho, old_decisions = ranking(rows, old, measured)
    report = {"rows": len(rows), "train_rows": len(train), "test_rows": len(test), "seed": SEED,
              "constants": dict(zip(NAMES, map(float, theta))),
              "train": errors(simulated[train], measured[train]), "test": errors(simulated[test], measured[test]),
              "spearman_per_size": size_rho, "decisions": decisions,
              "zb_weight_passes": {name: {"measured_ms": 1e3 * w, "simulated_ms": 1e3 * float(sim)}
                                   for (name, *_, w), sim in zip(ZB_WEIGHT_PASSES, zb_simulated)},
              "old_model": {"compute_efficiency": efficiency, "all": errors(old, measured),
                            "spearman_per_size": old_rho, "decisions": old_decisions},
              "rounds": history}
    with open(os.path.join(args.out, "fit.json"), "w") as f:
        json.dump(report, f, indent=2)
    pd.DataFrame({"row": rows.index, "measured_s": measured, "simulated_s": simulated, "efficiency_model_s": old,
                  "held_out": np.isin(rows.index, test)}).to_csv(os.path.join(args.out, "predictions.csv"),
                                                                 index=False)
    if args.write:
        write_constants(theta, report, args.write)

    print(f"\nconstants: " + ", ".join(f"{n} {v:.4g}" for n, v in zip(NAMES, theta)))
    print(f"held out ({len(test)} rows): MAPE {report['test']['mape']:.2%}, p90 {report['test']['p90']:.2%}, "
          f"max {report['test']['max']:.2%}; training ({len(train)}): MAPE {report['train']['mape']:.2%}")
    print("ZB weight-gradient passes (ms, measured / simulated): " + ", ".join(
        f"{name} {1e3 * w:.2f} / {1e3 * sim:.2f}" for (name, *_, w), sim in zip(ZB_WEIGHT_PASSES, zb_simulated)))
    print(f"one efficiency ({efficiency:.3f}) for every FLOP instead: MAPE {report['old_model']['all']['mape']:.2%}")
    print("\nSpearman ρ of simulated against measured time, per model size (kernel model / one efficiency):")
    for size in size_rho:
        print(f"  {size}: {size_rho[size]:.3f} / {old_rho[size]:.3f}")
    print(f"\n{decisions['decisions']} decisions (a model, GPUs and global batch; its layouts and micro-batch sizes):")
    for name, d in (("kernel model", decisions), ("one efficiency", old_decisions)):
        print(f"  {name}: measured-best layout simulated first in {d['best_is_first']:.0%}, in the top 3 in "
              f"{d['best_in_top3']:.0%}, mean place {d['mean_place']:.2f}")
    print(f"\nwrote {args.out}/fit.json, predictions.csv" + (f", {args.write}" if args.write else ""))


if __name__ == "__main__":
    main()
