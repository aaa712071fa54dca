// ZB-H1 (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv 2401.10241, §2.1 and
// Figure 3 top): 1F1B's order and warmup with the backward split into I and W, rank r's W trailing its
// own I by r micro-batches; the order of the paper's Table 5, for any m. docs/schedules.md, "ZB-H1".
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
