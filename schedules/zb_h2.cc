// ZB-H2 (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv 2401.10241, §2.2 and
// Figure 3 bottom): ZB-H1 with 2(p − r) − 1 warmup forwards on rank r and each W trailing its own I by
// 2r micro-batches; the order of the paper's Table 5. Its memory, its bubble and why it needs
// m ≥ 2p − 1: docs/schedules.md, "ZB-H2".
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
