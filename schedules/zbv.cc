// ZB-V, the memory-efficient zero-bubble schedule of Qi et al. 2024 ("Zero Bubble Pipeline
// Parallelism", arXiv 2401.10241, §6 and Figure 8), in the order of PyTorch's
// ScheduleZBVZeroBubble (torch/distributed/pipelining/schedules.py).
//
// The model is cut into 2p stages folded into a V: rank r holds stage r (chunk 0) and 2p − 1 − r
// (chunk 1), so a micro-batch's forward starts and its backward ends on rank 0, which can start
// backwards early. Rank r warms up with 2(p − r) − 1 chunk-0 forwards, then r pairs of a chunk-1
// and a chunk-0 forward (2p − 1 forwards in all, the paper's 2p − i and i − 1 for worker i = r + 1),
// then p − r groups F-I-W of chunk 1; the steady phase alternates an F-I-W group of chunk 0 with one
// of chunk 1; the cooldown runs r pairs of chunk-0 and chunk-1 I's, then p − r chunk-0 I-W pairs,
// then the W's left, chunk 1's first. When F = I = W and m ≥ 2p − 1 no rank ever waits once it has
// started, and each holds 2p live virtual-stage activations at its peak: p whole stages, 1F1B's.
//
// As PyTorch does, the programs are built for max(2p − 1, m) micro-batches and the actions of
// micro-batches ≥ m dropped: the schedule takes any m, and is zero-bubble from m = 2p − 1 on.
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
