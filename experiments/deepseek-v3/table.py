"""The tables of experiments/deepseek-v3 from its runs' summary.json and .time files."""
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])


def row(name):
    s = json.loads((out / name / "summary.json").read_text())
    wall, rss_kb = (out / f"{name}.time").read_text().split()
    gpus = s["gpus"]
    exposed = sum(g["exposed_comm"]["a2a"] for g in gpus) / len(gpus)
    hidden = sum(g["a2a_hidden"] for g in gpus) / len(gpus)
    busy = sum(g["busy"] for g in gpus) / len(gpus)
    in_pairs = sum(g["a2a_exposed_in_pairs"] for g in gpus) / len(gpus)
    peak = max(r["total"] for r in s["memory"]["ranks"]) / 1e9
    return s, exposed, hidden, in_pairs, peak, float(wall), int(rss_kb) / 1024


print("| schedule | step time (s) | bubble | a2a exposed per GPU (s) | of which in F&B pairs | a2a hidden (s) "
      "| exposed a2a share of the step | peak memory per GPU (GB) | simulation wall time (s) | peak RSS (MB) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in ["1f1b", "zb-h1", "dualpipe", "dualpipev"]:
    s, exposed, hidden, in_pairs, peak, wall, rss = row(name)
    print(f"| {name} | {s['makespan']:.2f} | {s['bubble_fraction']:.3f} | {exposed:.3f} | {in_pairs:.3f} | {hidden:.3f} "
          f"| {exposed / s['makespan']:.3f} | {peak:.1f} | {wall:.0f} | {rss:.0f} |")
print()
print("| DualPipe, routing | step time (s) | a2a exposed per GPU (s) | of which in F&B pairs | a2a hidden (s) "
      "| overlap (hidden / all) |")
print("|---|---|---|---|---|---|")
for name, routing in [("dualpipe", "uniform"), ("dualpipe-zipf0.05", "zipf:0.05"), ("dualpipe-zipf0.1", "zipf:0.1"),
                      ("dualpipe-zipf0.2", "zipf:0.2"), ("dualpipe-zipf0.5", "zipf:0.5")]:
    s, exposed, hidden, in_pairs, peak, wall, rss = row(name)
    print(f"| {routing} | {s['makespan']:.2f} | {exposed:.3f} | {in_pairs:.3f} | {hidden:.3f} "
          f"| {hidden / (hidden + exposed):.3f} |")
print()
print("| DualPipe, `--ep-comm` | step time (s) | p2p exposed per GPU (s) | a2a exposed per GPU (s) | idle per GPU (s) "
      "| SimGrid comms | simulation wall time (s) | peak RSS (MB) |")
print("|---|---|---|---|---|---|---|---|")
for name, model in [("dualpipe", "flow, deepep"), ("dualpipe-analytic", "analytic")]:
    s, exposed, hidden, in_pairs, peak, wall, rss = row(name)
    gpus = s["gpus"]
    p2p = sum(g["exposed_comm"]["p2p"] for g in gpus) / len(gpus)
    idle = sum(g["idle"] for g in gpus) / len(gpus)
    comms = f"{s['simgrid_comms']:,}".replace(",", " ")
    print(f"| {model} | {s['makespan']:.3f} | {p2p:.3f} | {exposed:.3f} | {idle:.3f} | {comms} | {wall:.0f} | {rss:.0f} |")
print()
# The report (§1, Table 1): 180K H800 GPU-hours per trillion tokens, at its batch of 15360 sequences.
s = json.loads((out / "dualpipe-batch15360" / "summary.json").read_text())
tokens = s["global_batch"] * s["inputs"]["model"]["seq"]
hours = s["makespan"] * len(s["gpus"]) / tokens * 1e12 / 3600
print(f"| DualPipe at the report's batch | step time (s) | sequences a step | MFU (FP8 peak) | H800 GPU-hours per trillion "
      "tokens | the report's |")
print("|---|---|---|---|---|---|")
print(f"| 120 micro-batches per pipeline | {s['makespan']:.2f} | {s['global_batch']} | {s['mfu']:.3f} | {hours / 1e3:.1f}K | 180K |")
