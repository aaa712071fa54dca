#!/usr/bin/python3
"""The what-ifs' table and heat map: the platform file's name carries the InfiniBand share and the
oversubscription (ibNN-osR.xml); this splits it into two columns for heatmap.py."""
import csv
import pathlib
import re
import subprocess
import sys

out = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "results.csv")))
for r in rows:
    ib, oversubscription = re.search(r"ib(\d+)-os(\d+)", r["platform.file"]).groups()
    r["infiniband_percent"], r["oversubscription"] = ib, oversubscription
# heatmap.py reads the axes between `id` and `status`: the two derived ones replace the file's name.
metrics = list(rows[0].keys())[list(rows[0].keys()).index("status"):-2]
with open(out / "what-ifs.csv", "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=["id", "infiniband_percent", "oversubscription"] + metrics,
                            extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)

steps = {(r["infiniband_percent"], r["oversubscription"]): r for r in rows}
print("| InfiniBand per port | 1:1 | 2:1 | 4:1 |")
print("|---|---|---|---|")
for ib in ("100", "50", "25"):
    cells = []
    for os in ("1", "2", "4"):
        r = steps[(ib, os)]
        cells.append(f"{float(r['steady_step']):.3f} s ({float(r['bubble_fraction']):.3f})" if r["status"] == "ok" else r["status"])
    print(f"| {ib} % ({25 * int(ib) / 100:g} GB/s) | " + " | ".join(cells) + " |")
heatmap = pathlib.Path(__file__).resolve().parent.parent / "plot" / "heatmap.py"
subprocess.run([sys.executable, str(heatmap), str(out / "what-ifs.csv"), "--x", "oversubscription", "--y",
                "infiniband_percent", "--metric", "steady_step", "--out", str(out / "heatmap.png")], check=True)
print(f"\nheat map: {out / 'heatmap.png'}")
