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
rows = [r for r in every_row if r["parallel.microbatches"] == TABLE_MICROBATCHES]
print(f"{TABLE_MICROBATCHES} micro-batches:")
print("| schedule | status | step time (s) | bubble | TFLOP/s per GPU | MFU |")
print("|---|---|---|---|---|---|")
for r in sorted(rows, key=lambda r: float(r["makespan"] or "inf")):
    if r["status"] != "ok":
        print(f"| {r['sim.schedule']} | {r['status']}: {r['message']} | | | | |")
        continue
    print(f"| {r['sim.schedule']} | ok | {float(r['makespan']):.3f} | {float(r['bubble_fraction']):.3f} "
          f"| {float(r['tflops_per_gpu']):.1f} | {float(r['mfu']):.3f} |")

# The Gantt chart of three schedules on one time axis: GPipe and 1F1B share a bubble, DualPipe's is smaller.
run_of = {r["sim.schedule"]: r["id"] for r in rows if r["status"] == "ok"}
traces = [str(out / "runs" / run_of[s] / "trace.csv") for s in ("gpipe", "1f1b", "dualpipe") if s in run_of]
plot = pathlib.Path(__file__).resolve().parent.parent / "plot"
subprocess.run([sys.executable, str(plot / "gantt.py"), *traces, "--out", str(out / "gantt.png")], check=True)
# Bubble fraction and step time against the micro-batch count, one line per schedule.
subprocess.run([sys.executable, str(plot / "curves.py"), str(out / "results.csv"), "--x", "parallel.microbatches",
                "--group", "sim.schedule", "--out", str(out / "curves.png")], check=True)
print(f"\nGantt chart ({TABLE_MICROBATCHES} micro-batches): {out / 'gantt.png'}; curves: {out / 'curves.png'}")
