#!/usr/bin/python3
"""The quickstart's table, Gantt chart and curves from its sweep: report.py OUT_DIR (after `pipegrid sweep`).
The table and the Gantt chart are of the base job's 16 micro-batches; the curves span all four counts."""
import csv
import pathlib
import subprocess
import sys

out = pathlib.Path(sys.argv[1])
TABLE_MICROBATCHES = "16"
every_row = list(csv.DictReader(open(out / "results.csv")))
allreduce = [r for r in every_row if r["sim.optimizer_sync"] == "allreduce"]
rows = [r for r in allreduce if r["parallel.microbatches"] == TABLE_MICROBATCHES]
post_validation = {r["sim.schedule"]: r for r in every_row
                   if r["sim.optimizer_sync"] == "post-validation" and r["parallel.microbatches"] == TABLE_MICROBATCHES}
print(f"{TABLE_MICROBATCHES} micro-batches, 3 steps; steady step = the last step's duration:")
print("| schedule | status | steady step (s) | first step (s) | steady step, post-validation (s) | bubble "
      "| TFLOP/s per GPU | MFU |")
print("|---|---|---|---|---|---|---|---|")
for r in sorted(rows, key=lambda r: float(r["steady_step"] or "inf")):
    if r["status"] != "ok":
        print(f"| {r['sim.schedule']} | {r['status']}: {r['message']} | | | | | | |")
        continue
    pv = post_validation.get(r["sim.schedule"])
    pv_step = f"{float(pv['steady_step']):.3f}" if pv and pv["status"] == "ok" else (pv or {}).get("status", "")
    print(f"| {r['sim.schedule']} | ok | {float(r['steady_step']):.3f} | {float(r['first_step']):.3f} | {pv_step} "
          f"| {float(r['bubble_fraction']):.3f} | {float(r['tflops_per_gpu']):.1f} | {float(r['mfu']):.3f} |")
with open(out / "results-allreduce.csv", "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=list(every_row[0].keys()))
    writer.writeheader()
    writer.writerows(allreduce)

# The Gantt chart of three schedules on one time axis: GPipe and 1F1B share a bubble, DualPipe's is smaller.
run_of = {r["sim.schedule"]: r["id"] for r in rows if r["status"] == "ok"}
traces = [str(out / "runs" / run_of[s] / "trace.csv") for s in ("gpipe", "1f1b", "dualpipe") if s in run_of]
plot = pathlib.Path(__file__).resolve().parent.parent / "plot"
subprocess.run([sys.executable, str(plot / "gantt.py"), *traces, "--out", str(out / "gantt.png")], check=True)
# Bubble fraction and step time against the micro-batch count, one line per schedule.
subprocess.run([sys.executable, str(plot / "curves.py"), str(out / "results-allreduce.csv"), "--x", "parallel.microbatches",
                "--group", "sim.schedule", "--out", str(out / "curves.png")], check=True)
print(f"\nGantt chart ({TABLE_MICROBATCHES} micro-batches): {out / 'gantt.png'}; curves: {out / 'curves.png'}")
