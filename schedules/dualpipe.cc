// DualPipe (DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, §3.2.1; deepseek-ai/DualPipe,
// dualpipe/dualpipe.py): micro-batches enter from both ends of the pipeline at once. Half of them
// run the forward direction (model stage s on rank s), half the reverse one (model stage s on rank
// p − 1 − s), so every rank holds model stage r of one copy of the model and p − 1 − r of the other
// (parameters 2×), and overlaps one direction's forward with the other's backward in (F;B) pairs.
//
// Every rank runs the eight phases of `DualPipe.step()` (dualpipe_phases.h) with h = min(r, p − 1 − r),
// H = p/2 and m/2 micro-batches per chunk. "Phase 0" is the direction that enters at the rank's own
// end: the forward one on ranks 0 … p/2 − 1, the reverse one on ranks p/2 … p − 1, so rank r and rank
// p − 1 − r run mirror images of one program.
//
// The two directions share ranks, never data: each is its own chain in the layout and ends at the
// far end of the pipeline, where its last stage's backward starts from its own forward (the loss),
// as results.h says. The all-reduce that sums the two copies' gradients is not part of the schedule
// (sim/exec/gradient_plan.h reduces each model stage's copies with its replicas). DeepSeek's own send
// order and wait points — some outputs held back to the next commit, every commit waited before the
// next compute — are its comm plan (dualpipe_comm_plan.cc, --comm-plan dualpipe, the default).
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
