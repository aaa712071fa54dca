// GPipe (Huang et al. 2019): every forward, then every backward, in micro-batch order as
// torch.distributed.pipelining's ScheduleGPipe runs them. Rank r holds stage r.
#include "schedules/generators.h"

namespace pipegrid {

Schedule generate_gpipe(const ScheduleParams& params) {
  const int p = params.ranks, m = params.microbatches;
  Schedule schedule{"gpipe", p, m, 1, StageLayout::chain(loop_placement(p, 1), m), {}, {}};
  schedule.programs.resize(p);
  for (int r = 0; r < p; ++r) {
    auto& program = schedule.programs[r];
    program.reserve(2 * static_cast<std::size_t>(m));
    for (int mb = 0; mb < m; ++mb) program.emplace_back(Action{r, mb, Kind::F});
    for (int mb = 0; mb < m; ++mb) program.emplace_back(Action{r, mb, Kind::B});
  }
  return schedule;
}

}  // namespace pipegrid
