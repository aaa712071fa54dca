// DualPipeV (DeepSeek-AI, deepseek-ai/DualPipe, dualpipe/dualpipev.py; first described by Sea AI
// Lab as "cut-in-half" DualPipe): DualPipe folded into a V. One chain of 2p virtual stages, rank r
// holding stages r and 2p − 1 − r, every micro-batch through all of them, so parameters are held
// once instead of twice. PyTorch's ScheduleDualPipeV (torch/distributed/pipelining/schedules.py)
// generates the same order, and its trace for p = 4, m = 10 is tests/data/dualpipev_4rank_10mb.csv.
//
// Every rank runs DualPipe's eight phases (dualpipe_phases.h) with h = r, H = p and m micro-batches
// per chunk; phase 0 is the descending arm of the V (stage r), phase 1 the ascending one.
//
// At the bottom of the V the last rank hands its own stage p − 1's output to its stage p, and stage
// p's input gradient back to stage p − 1 (dualpipev.py copies the tensors instead of sending them):
// the chain layout states exactly these dependencies, and no transfer, since both are on one rank.
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
