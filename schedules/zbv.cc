// ZB-V (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", arXiv 2401.10241, §6 and Figure 8) in the
// order of PyTorch's ScheduleZBVZeroBubble (torch/distributed/pipelining/schedules.py): 2p stages folded
// into a V, rank r holding stages r and 2p − 1 − r. As PyTorch does, the programs are built for
// max(2p − 1, m) micro-batches and the extra ones dropped, so any m is taken. The phases, and when the
// schedule has no bubble: docs/schedules.md, "ZB-V".
#include <algorithm>

#include "schedules/generators.h"

namespace pipegrid {

namespace {

// One rank's actions for n ≥ 2p − 1 micro-batches, in PyTorch's order.
std::vector<Action> zbv_actions(int p, int rank, int n) {
  const int chunk0 = rank, chunk1 = 2 * p - 1 - rank;
  std::vector<Action> actions;
  int f0 = 0, f1 = 0, i0 = 0, i1 = 0;
  auto forward = [&](int stage, int& count) { actions.push_back(Action{stage, count++, Kind::F}); };
  // I then W of the same micro-batch, W closing the group.
  auto group_backward = [&](int stage, int& count) {
    actions.push_back(Action{stage, count, Kind::I});
    actions.push_back(Action{stage, count++, Kind::W});
  };
  for (int k = 0; k < 2 * (p - rank) - 1; ++k) forward(chunk0, f0);
  for (int k = 0; k < rank; ++k) {
    forward(chunk1, f1);
    forward(chunk0, f0);
  }
  for (int k = 0; k < p - rank; ++k) {
    forward(chunk1, f1);
    group_backward(chunk1, i1);
  }
  while (f1 < f0 || f0 < n) {
    if (f0 < n) forward(chunk0, f0);
    group_backward(chunk0, i0);
    forward(chunk1, f1);
    group_backward(chunk1, i1);
  }
  int w0 = i0, w1 = i1;  // the W's from here on trail their I's
  for (int k = 0; k < rank; ++k) {
    actions.push_back(Action{chunk0, i0++, Kind::I});
    actions.push_back(Action{chunk1, i1++, Kind::I});
  }
  for (int k = 0; k < p - rank; ++k) {
    actions.push_back(Action{chunk0, i0++, Kind::I});
    actions.push_back(Action{chunk0, w0++, Kind::W});
  }
  while (w1 < i1) actions.push_back(Action{chunk1, w1++, Kind::W});
  while (w0 < i0) actions.push_back(Action{chunk0, w0++, Kind::W});
  return actions;
}

}  // namespace

Schedule generate_zbv(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  Schedule schedule{"zbv", p, m, 2, StageLayout::chain(v_placement(p), m), {}, {}};
  schedule.programs.resize(p);
  const int built_for = std::max(2 * p - 1, m);
  for (int r = 0; r < p; ++r) {
    auto& program = schedule.programs[r];
    program.reserve(6 * static_cast<std::size_t>(m));
    for (const Action& a : zbv_actions(p, r, built_for))
      if (a.microbatch < m) program.emplace_back(a);
  }
  return schedule;
}

}  // namespace pipegrid
