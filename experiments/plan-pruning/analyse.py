#!/usr/bin/python3
"""What the planner's pruning loses, on a plan whose every candidate was simulated (--top above the
candidates): the recall of the exhaustive top K (by simulated step) in the planner's top K (by
contention-free estimate), and the regret of the planner's first choice (the best simulated step of
its top K) over the exhaustive best. Usage: analyse.py PLAN_DIR [K]"""
import sys

import pandas as pd


def main():
    plan_dir, k = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20
    plan = pd.read_csv(f"{plan_dir}/plan.csv")
    key = ["tp", "pp", "dp", "cp", "ep", "micro_batch", "schedule", "chunks", "recompute", "sequence_parallel", "zero"]
    done = plan[plan.stage == "simulated"].copy()
    estimated = plan[plan.estimated_step_s.notna()]
    if len(done) < len(estimated):
        sys.exit(f"{plan_dir}: {len(estimated) - len(done)} estimated candidates were not simulated; rerun with a larger --top")
    done["text"] = done[key].astype(str).agg(" ".join, axis=1)
    by_estimate = done.sort_values(["estimated_step_s", "peak_memory_bytes", "text"]).head(k)
    by_simulation = done.sort_values(["simulated_step_s", "peak_memory_bytes", "text"]).head(k)
    recall = len(set(by_estimate.text) & set(by_simulation.text)) / k
    best = by_simulation.simulated_step_s.iloc[0]
    chosen = by_estimate.simulated_step_s.min()
    gap = (done.simulated_step_s / done.estimated_step_s - 1)
    print(f"{plan_dir}: {len(done)} candidates simulated; recall of the top {k}: {recall:.2f}; "
          f"regret of the first choice: {chosen / best - 1:.2%}; simulated / estimated - 1: "
          f"{gap.min():+.2%} … {gap.max():+.2%}")


if __name__ == "__main__":
    main()
