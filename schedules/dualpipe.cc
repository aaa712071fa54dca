// DualPipe (DeepSeek-V3 Technical Report, 2024, §3.2.1; deepseek-ai/DualPipe dualpipe/dualpipe.py):
// micro-batches enter from both ends at once, rank r holding model stage r of one copy of the model and
// p − 1 − r of the other, and every rank runs DualPipe.step()'s eight phases (dualpipe_phases.h). The
// directions share ranks, never data; the copies' gradient sum (gradient_plan.h) and DeepSeek's send
// order (dualpipe_comm_plan.cc) are not the schedule's. docs/schedules.md, "DualPipe".
#include <algorithm>
#include <fmt/format.h>

#include "schedules/dualpipe_phases.h"
#include "schedules/generators.h"
#include "common/input_error.h"

namespace pipegrid {

Schedule generate_dualpipe(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  // dualpipe.py asserts all three: the ranks pair up as r and p − 1 − r, half the micro-batches
  // enter at each end, and every rank needs m/2 ≥ p for its warmup phases.
  if (p % 2 != 0) throw InputError(fmt::format("--pp {}: dualpipe needs an even number of ranks", p));
  if (m % 2 != 0)
    throw InputError(fmt::format(
        "--microbatches {}: dualpipe needs an even number of micro-batches (half enter at each end)", m));
  if (m < 2 * p)
    throw InputError(
        fmt::format("--microbatches {}: dualpipe needs at least 2 × --pp ({}) micro-batches", m, 2 * p));

  Schedule schedule{"dualpipe", p, m, 2, StageLayout::two_directions(p, m), {}, {}};
  schedule.programs.resize(p);
  const int half = p / 2;
  for (int r = 0; r < p; ++r) {
    const DualPipeChunk forward_direction{r, 0};
    const DualPipeChunk reverse_direction{2 * p - 1 - r, m / 2};
    const bool second_half = r >= half;
    schedule.programs[r] = dualpipe_rank_program(DualPipeRank{
        std::min(r, p - 1 - r),
        half,
        m / 2,
        {second_half ? reverse_direction : forward_direction, second_half ? forward_direction : reverse_direction},
    });
  }
  return schedule;
}

}  // namespace pipegrid
