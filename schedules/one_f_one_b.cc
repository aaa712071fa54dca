// 1F1B, also PipeDream-Flush (Narayanan et al. 2021): rank r runs min(p − r − 1, m) warmup forwards,
// then alternates one forward and one backward, then drains the remaining backwards. Same bubble as
// GPipe, but rank r holds at most min(p − r, m) activations instead of m.
#include <algorithm>

#include "schedules/generators.h"

namespace pipegrid {

int warmup_forwards_1f1b(int ranks, int rank, int microbatches) {
  return std::min(ranks - rank - 1, microbatches);
}

Schedule generate_1f1b(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  Schedule schedule{"1f1b", p, m, 1, StageLayout::chain(loop_placement(p, 1), m), {}, {}};
  schedule.programs.resize(p);
  for (int r = 0; r < p; ++r) {
    auto& program = schedule.programs[r];
    program.reserve(2 * static_cast<std::size_t>(m));
    const int warmup = warmup_forwards_1f1b(p, r, m);
    for (int mb = 0; mb < warmup; ++mb) program.emplace_back(Action{r, mb, Kind::F});
    for (int i = 0; i < m - warmup; ++i) {
      program.emplace_back(Action{r, warmup + i, Kind::F});
      program.emplace_back(Action{r, i, Kind::B});
    }
    for (int mb = m - warmup; mb < m; ++mb) program.emplace_back(Action{r, mb, Kind::B});
  }
  return schedule;
}

}  // namespace pipegrid
