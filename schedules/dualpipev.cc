// DualPipeV (deepseek-ai/DualPipe dualpipe/dualpipev.py; Sea AI Lab's "cut-in-half" DualPipe): DualPipe
// folded into a V of 2p stages, rank r holding stages r and 2p − 1 − r, parameters held once. PyTorch's
// ScheduleDualPipeV gives the same order (tests/data/dualpipev_4rank_10mb.csv). At the bottom of the V
// both hand-overs stay on the last rank: no transfer. docs/schedules.md, "DualPipeV".
#include <fmt/format.h>

#include "schedules/dualpipe_phases.h"
#include "schedules/generators.h"
#include "common/input_error.h"

namespace pipegrid {

Schedule generate_dualpipev(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  // dualpipev.py asserts it, and PyTorch asks for as many micro-batches as stages: rank 0 has run
  // 2p forwards of its first chunk by the end of its first overlapped pair.
  if (m < 2 * p)
    throw InputError(
        fmt::format("--microbatches {}: dualpipev needs at least 2 × --pp ({}) micro-batches", m, 2 * p));

  Schedule schedule{"dualpipev", p, m, 2, StageLayout::chain(v_placement(p), m), {}, {}};
  schedule.programs.resize(p);
  for (int r = 0; r < p; ++r)
    schedule.programs[r] = dualpipe_rank_program(DualPipeRank{r, p, m, {DualPipeChunk{r, 0}, {2 * p - 1 - r, 0}}});
  return schedule;
}

}  // namespace pipegrid
