#!/usr/bin/python3
"""The what-ifs' table and heat map, from the sweep's results.csv: its axes platform.ib_bw and
platform.oversubscription are the table's rows and columns and the heat map's axes."""
import csv
import pathlib
import subprocess
import sys

IB_BW = ["25GBps", "12.5GBps", "6.25GBps"]  # sweep.toml's order: 100, 50 and 25 % of HDR
OVERSUBSCRIPTION = ["1", "2", "4"]

out = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "results.csv")))
steps = {(r["platform.ib_bw"], r["platform.oversubscription"]): r for r in rows}
print("| InfiniBand per port | 1:1 | 2:1 | 4:1 |")
print("|---|---|---|---|")
for share, ib in zip((100, 50, 25), IB_BW):
    cells = []
    for os in OVERSUBSCRIPTION:
        r = steps[(ib, os)]
        cells.append(f"{float(r['steady_step']):.3f} s ({float(r['bubble_fraction']):.3f})"
                     if r["status"] == "ok" else r["status"])
    print(f"| {share} % ({ib[:-4]} GB/s) | " + " | ".join(cells) + " |")
heatmap = pathlib.Path(__file__).resolve().parent.parent / "plot" / "heatmap.py"
subprocess.run([sys.executable, str(heatmap), str(out / "results.csv"), "--x", "platform.oversubscription", "--y",
                "platform.ib_bw", "--metric", "steady_step", "--out", str(out / "heatmap.png")], check=True)
print(f"\nheat map: {out / 'heatmap.png'}")
