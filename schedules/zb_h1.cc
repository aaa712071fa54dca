// ZB-H1, the memory-efficient handcrafted schedule of Qi et al. 2024 ("Zero Bubble Pipeline
// Parallelism", ICLR 2024, arXiv 2401.10241, §2.1 and Figure 3 top): 1F1B's order and warmup with
// the backward split into I and W, each rank's W's started later the fewer warmup forwards it has.
//
// Rank r runs 1F1B's p − r − 1 warmup forwards and lets each W trail its own I by r micro-batches,
// so every rank has p micro-batches in flight, as 1F1B's rank 0, and the W's it put off fill the
// tail that 1F1B leaves idle on the later ranks. The paper's Table 2: bubble (p − 1)(F + I − W)
// against 1F1B's (p − 1)(F + I + W) (its B is our I); tests/schedules/zero_bubble_test.cc says when exactly.
// The order reproduces the ZB-H1 column of the paper's Table 5. No constraint of its own: like 1F1B
// it takes any m (with m < p the first ranks run all their forwards first).
#include "schedules/generators.h"
#include "schedules/zero_bubble_order.h"

namespace pipegrid {

Schedule generate_zb_h1(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  Schedule schedule{"zb-h1", p, m, 1, StageLayout::chain(loop_placement(p, 1), m), {}, {}};
  schedule.programs.resize(p);
  for (int r = 0; r < p; ++r)
    schedule.programs[r] = split_backward_program(r, m, {.forwards_first = p - r, .weight_lag = r});
  return schedule;
}

}  // namespace pipegrid
