#!/usr/bin/env python3
"""NVIDIA's DGX Cloud benchmark recipes (h100_dgxc_benchmarking.csv) as pipegrid runs.

Each measured row becomes one pipegrid command on a generated DGX H100 platform of the row's size:
its layout (the BF16 and FP8 rows of a layout share it) and its precision. From the repository root:

  recipes.py commands                      print each row's command line
  recipes.py run OUT [--engine E] [--jobs J]
      run every row; E = simgrid (pipegrid simulate, the default) or contention-free
      (pipegrid schedule's priced estimate); writes OUT/table.csv (measured, simulated, error) and
      prints it. A simgrid run whose OUT/NAME/summary.json exists is not run again, so an
      interrupted table resumes.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "h100_dgxc_benchmarking.csv")

# The model each row names, as a pipegrid preset or flags. The CSV leaves the vocabulary empty; the
# presets carry each model's published one (GPT-3: 51 200 as Megatron pads GPT-2's 50 257).
GROK1 = [  # xAI's published Grok-1 (github.com/xai-org/grok-1, model.py): 8 experts, top-2, GQA 8
    "--hidden", "6144", "--heads", "48", "--kv-heads", "8", "--vocab", "131072", "--mlp", "swiglu",
    "--norm", "rmsnorm", "--positions", "rope", "--linear-bias", "off", "--qkv-bias", "off",
    "--dropout", "off", "--tied-embeddings", "off", "--experts", "8", "--top-k", "2",
    "--expert-hidden", "32768"]
MODELS = {  # params_b column -> the flags naming the model
    "175": ["--model", "gpt-175b"],
    "8": ["--model", "llama3.1-8b"],
    "70": ["--model", "llama3.1-70b"],
    # The recipe's NeMo yaml sets num_query_groups 16 (the row's notes), not the released config's 8.
    "405": ["--model", "llama3.1-405b", "--kv-heads", "16"],
    "15": ["--model", "nemotron4-15b"],
    "340": ["--model", "nemotron4-340b"],
    "314": GROK1,
}
NAMES = {"175": "GPT-3 175B", "8": "Llama 3.1 8B", "70": "Llama 3.1 70B", "405": "Llama 3.1 405B",
         "15": "Nemotron-4 15B", "340": "Nemotron-4 340B", "314": "Grok-1 314B"}
PRECISIONS = ["bf16", "fp8"]
LAYOUT = ["params_b", "gpus", "layers", "hidden", "heads", "ffn_hidden", "seq", "moe_experts", "tp",
          "pp", "dp", "ep", "cp", "vpp", "micro_batch", "global_batch", "schedule", "recompute"]


def layouts():
    """The distinct layouts, in the file's order, each with its measured BF16 and FP8 step times."""
    found = {}
    with open(DATA, newline="") as f:
        for row in csv.DictReader(f):
            key = tuple(row[c] for c in LAYOUT)
            entry = found.setdefault(key, dict(row, bf16_s="", fp8_s=""))
            entry[row["precision"] + "_s"] = row["value"]
    return list(found.values())


def interleave_chunks(row):
    """Virtual stages: the row's, else the 2025 GPT-3 rows' yaml value 6 (the notes' ambiguity)."""
    if row["vpp"]:
        return int(row["vpp"])
    return 6 if row["schedule"].startswith("interleaved") and int(row["pp"]) > 1 else 1


def arguments(row, precision="bf16"):
    """The pipegrid options that describe the row, as NeMo's recipes set them (README.md)."""
    tp, pp, dp, cp = (int(row[c] or 1) for c in ("tp", "pp", "dp", "cp"))
    micro = int(row["micro_batch"])
    chunks = interleave_chunks(row)
    args = MODELS[row["params_b"]] + [
        "--layers", row["layers"], "--seq", row["seq"],
        "--preset", "dgx-h100", "--nodes", str(int(row["gpus"]) // 8),
        "--tp", str(tp), "--pp", str(pp), "--dp", str(dp),
        "--micro-batch", str(micro), "--microbatches", str(int(row["global_batch"]) // (dp * micro)),
        "--schedule", "interleaved" if chunks > 1 else "1f1b",
        "--distributed-optimizer", "--flash-attention",
        "--recompute", "selective" if row["recompute"].startswith("selective") else "none"]
    if chunks > 1:
        args += ["--chunks", str(chunks)]
    if cp > 1:
        args += ["--cp", str(cp)]
    if row["ep"]:
        args += ["--ep", row["ep"]]
    if tp > 1:
        args += ["--sequence-parallel", "--tp-comm-overlap"]
    if precision != "bf16":
        args += ["--precision", precision]
    return args


def run_one(pipegrid, row, precision, engine, out):
    name = (f"{row['params_b']}b-{row['gpus']}gpu-tp{row['tp']}pp{row['pp']}cp{row['cp'] or 1}-"
            f"v{interleave_chunks(row)}-{precision}")
    if engine == "simgrid":
        folder = os.path.join(out, name)
        summary = os.path.join(folder, "summary.json")
        if os.path.exists(summary):  # a run an earlier call finished: a long table resumes
            with open(summary) as f:
                return name, 0, json.load(f)["makespan"], ""
        cmd = [pipegrid, "simulate", *arguments(row, precision), "--trace", "off", "--out", folder]
    else:
        cmd = [pipegrid, "schedule", *arguments(row, precision), "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    step, message = "", done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if done.returncode == 0:
        if engine == "simgrid":
            with open(os.path.join(folder, "summary.json")) as f:
                step = json.load(f)["makespan"]
        else:
            step = json.loads(done.stdout)["step_time"]
    return name, done.returncode, step, message


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["commands", "run"])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--engine", choices=["simgrid", "contention-free"], default="simgrid")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--pipegrid", default="build/pipegrid")
    a = parser.parse_args()
    rows = [(row, precision) for row in layouts() for precision in PRECISIONS]
    if a.mode == "commands":
        for row, precision in rows:
            print(" ".join([a.pipegrid, "simulate", *arguments(row, precision)]))
        return 0
    if not a.out:
        parser.error("run needs OUT")
    os.makedirs(a.out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda r: run_one(a.pipegrid, r[0], r[1], a.engine, a.out), rows))
    columns = ["model", "gpus", "tp", "pp", "dp", "cp", "ep", "chunks", "micro_batch", "global_batch",
               "precision", "measured_s", "engine", "exit", "simulated_s", "error", "message"]
    with open(os.path.join(a.out, "table.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for (row, precision), (name, code, step, message) in zip(rows, results):
            measured = float(row[precision + "_s"])
            w.writerow([NAMES[row["params_b"]], row["gpus"], row["tp"], row["pp"], row["dp"], row["cp"] or 1,
                        row["ep"] or 1, interleave_chunks(row), row["micro_batch"], row["global_batch"],
                        precision, row[precision + "_s"], a.engine, code, f"{step:.4f}" if step != "" else "",
                        f"{step / measured - 1:+.4f}" if step != "" else "", "" if code == 0 else message])
    with open(os.path.join(a.out, "table.csv")) as f:
        sys.stdout.write(f.read())
    return 0 if all(code == 0 for _, code, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
