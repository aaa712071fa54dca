#!/usr/bin/env python3
"""OUT/table.csv from run.sh's runs and the paper's numbers, printed; then the ratios README.md reads.

Usage: table.py PAPER_CSV OUT_DIR

samples per GPU per second = m × b / steady_step / p: a step's m micro-batches of b sequences over
the p GPUs of the pipeline (no data parallelism in these runs), steady_step the third step's duration.
"""
import csv
import json
import os
import sys

SCHEDULES = ["1f1b", "zb-h1", "zb-h2", "interleaved"]
SYNCS = ["post-validation", "allreduce"]
PAPER_COLUMN = {"1f1b": "1f1b", "zb-h1": "zb1p", "zb-h2": "zb2p", "interleaved": "1f1b_i"}
COLUMNS = ["model", "p", "m", "schedule", "sync", "steady_step_ms", "samples_per_gpu_s_sim",
           "samples_per_gpu_s_paper", "ratio_to_1f1b_sim", "ratio_to_1f1b_paper"]


def main(paper_csv, out):
    rows, summary = [], []
    for r in csv.DictReader(open(paper_csv)):
        p, m, b = int(r["p"]), int(r["m"]), int(r["b"])
        sim = {}
        for schedule in SCHEDULES:
            for sync in SYNCS:
                with open(os.path.join(out, "runs", f"{r['model']}-p{p}-m{m}-{schedule}-{sync}.json")) as f:
                    step = json.load(f)["steady_step"]
                sim[schedule, sync] = (step, m * b / step / p)
        for schedule in SCHEDULES:
            paper = float(r[PAPER_COLUMN[schedule]])
            for sync in SYNCS:
                step, tput = sim[schedule, sync]
                rows.append([r["model"], p, m, schedule, sync, f"{step * 1000:.3f}", f"{tput:.4f}",
                             f"{paper:g}", f"{tput / sim['1f1b', sync][1]:.4f}",
                             f"{paper / float(r['1f1b']):.4f}"])
        t = lambda s, y: sim[s, y][1]
        pp = lambda s: float(r[PAPER_COLUMN[s]])
        summary.append([r["model"], p, m,
                        f"{t('zb-h1', 'post-validation') / t('1f1b', 'post-validation'):.3f}",
                        f"{pp('zb-h1') / pp('1f1b'):.3f}",
                        f"{t('zb-h2', 'post-validation') / t('1f1b', 'post-validation'):.3f}",
                        f"{pp('zb-h2') / pp('1f1b'):.3f}",
                        f"{t('zb-h2', 'post-validation') / t('zb-h1', 'post-validation'):.3f}",
                        f"{pp('zb-h2') / pp('zb-h1'):.3f}",
                        f"{t('interleaved', 'post-validation') / t('1f1b', 'post-validation'):.3f}",
                        f"{pp('interleaved') / pp('1f1b'):.3f}"]
                       + [f"{(t(s, 'post-validation') / t(s, 'allreduce') - 1) * 100:.2f}" for s in SCHEDULES])
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    with open(os.path.join(out, "table.csv")) as f:
        sys.stdout.write(f.read())
    header = ["model", "p", "m", "H1/1F1B sim", "paper", "H2/1F1B sim", "paper", "H2/H1 sim", "paper",
              "I/1F1B sim", "paper"] + [f"PV vs AR % {s}" for s in SCHEDULES]
    with open(os.path.join(out, "ratios.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(summary)
    print()
    print("ratios (simulated under post-validation; paper Table 4), post-validation over all-reduce in %:")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for s in summary:
        print("| " + " | ".join(str(x) for x in s) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
