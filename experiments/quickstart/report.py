#!/usr/bin/python3
"""The quickstart's table and Gantt chart from its sweep: report.py OUT_DIR (after `pipegrid sweep`)."""
import csv
import pathlib
import subprocess
import sys

out = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "results.csv")))
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
gantt = pathlib.Path(__file__).resolve().parent.parent / "plot" / "gantt.py"
subprocess.run([sys.executable, str(gantt), *traces, "--out", str(out / "gantt.png")], check=True)
print(f"\nGantt chart: {out / 'gantt.png'}")
