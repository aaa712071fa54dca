// ZB-H2, the zero-bubble handcrafted schedule of Qi et al. 2024 ("Zero Bubble Pipeline
// Parallelism", ICLR 2024, arXiv 2401.10241, §2.2 and Figure 3 bottom): ZB-H1 with more forwards
// in the warmup, to fill the wait before the first backward, and the W's put off further, so that
// the tail is a parallelogram instead of a trapezoid.
//
// Rank r runs 2(p − r) − 1 forwards before its first I — time enough, when F = I, for the first
// micro-batch to go down the pipeline and its I to come back — and lets each W trail its own I by
// 2r micro-batches. Every rank then has 2p − 1 micro-batches in flight at its peak (the paper's
// (2p − 2i + 1)M_B + (2i − 2)M_W for worker i = r + 1), and the bubble is (p − 1)(F + I − 2W)
// (its Table 2), zero when F + I = 2W; tests/schedules/zero_bubble_test.cc says when exactly. The paper asks
// for "a sufficient number of microbatches": rank 0's 2p − 1 warmup forwards. The order reproduces
// the ZB-H2 column of the paper's Table 5.
#include <fmt/format.h>

#include "schedules/generators.h"
#include "common/input_error.h"
#include "schedules/zero_bubble_order.h"

namespace pipegrid {

Schedule generate_zb_h2(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  // With fewer, rank 0 would run every forward before its first backward: not ZB-H2 any more, and
  // its bubble and memory claims would not hold.
  if (m < 2 * p - 1)
    throw InputError(
        fmt::format("--microbatches {}: zb-h2 needs at least 2 * --pp - 1 ({}) micro-batches", m, 2 * p - 1));
  Schedule schedule{"zb-h2", p, m, 1, StageLayout::chain(loop_placement(p, 1), m), {}, {}};
  schedule.programs.resize(p);
  for (int r = 0; r < p; ++r)
    schedule.programs[r] =
        split_backward_program(r, m, {.forwards_first = 2 * (p - r) - 1, .weight_lag = 2 * r});
  return schedule;
}

}  // namespace pipegrid
