#!/usr/bin/python3
"""A plan's step time against peak memory (pipegrid plan's pareto.png): every estimated layout, the
simulated ones marked, the front of layouts no other beats on both, and the best. Usage:
    pareto.py PLAN.csv --out PARETO.png"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

GIB = 2**30


def front(points):
    """The (memory, time) points no other point beats on both, by memory."""
    out, best_time = [], float("inf")
    for memory, time in sorted(points):
        if time < best_time:
            out.append((memory, time))
            best_time = time
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("plan")
    parser.add_argument("--out", required=True)
    a = parser.parse_args()
    plan = pd.read_csv(a.plan)
    placed = plan[plan.place.notna()].copy()
    placed["memory"] = placed.peak_memory_bytes / GIB
    placed["time"] = placed.simulated_step_s.fillna(placed.estimated_step_s)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    estimated = placed[placed.stage == "estimated"]
    simulated = placed[placed.stage == "simulated"]
    ax.scatter(estimated.memory, estimated.time, s=8, color="0.65", label=f"estimated, contention-free ({len(estimated)})")
    ax.scatter(simulated.memory, simulated.time, s=22, color="tab:blue", label=f"simulated with contention ({len(simulated)})")
    line = front(zip(placed.memory, placed.time))
    ax.step([m for m, _ in line], [t for _, t in line], where="post", color="tab:orange", label="Pareto front")
    best = placed.sort_values("place").iloc[0]
    ax.scatter([best.memory], [best.time], marker="*", s=160, color="tab:red", zorder=3,
               label=f"best: tp {best.tp} pp {best.pp} dp {best.dp} {best.schedule}")
    ax.set_xlabel("peak memory of the fullest GPU (GiB)")
    ax.set_ylabel("step time (s)")
    ax.set_title("pipegrid plan: step time against memory")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)


if __name__ == "__main__":
    main()
