#include "schedules/schedule.h"

#include <algorithm>
#include <numeric>

namespace pipegrid {

StageLayout StageLayout::chain(std::vector<int> rank_of_stage, int microbatches) {
  StageLayout layout;
  const int stages = static_cast<int>(rank_of_stage.size());
  layout.rank_of_stage = std::move(rank_of_stage);
  layout.next.resize(stages);
  layout.prev.resize(stages);
  for (int s = 0; s < stages; ++s) {
    layout.next[s] = s + 1 < stages ? s + 1 : -1;
    layout.prev[s] = s - 1;
  }
  layout.first_microbatch.assign(stages, 0);
  layout.end_microbatch.assign(stages, microbatches);
  layout.model_stage.resize(stages);
  std::iota(layout.model_stage.begin(), layout.model_stage.end(), 0);
  return layout;
}

StageLayout StageLayout::two_directions(int ranks, int microbatches) {
  StageLayout layout = chain(v_placement(ranks), microbatches);
  const int half = microbatches / 2;
  for (int s = 0; s < 2 * ranks; ++s) {
    const bool reverse = s >= ranks;
    layout.next[s] = s + 1 < (reverse ? 2 * ranks : ranks) ? s + 1 : -1;
    layout.prev[s] = s > (reverse ? ranks : 0) ? s - 1 : -1;
    layout.first_microbatch[s] = reverse ? half : 0;
    layout.end_microbatch[s] = reverse ? microbatches : half;
    layout.model_stage[s] = reverse ? s - ranks : s;
  }
  return layout;
}

int StageLayout::num_model_stages() const {
  return model_stage.empty() ? 0 : *std::max_element(model_stage.begin(), model_stage.end()) + 1;
}

std::vector<int> loop_placement(int ranks, int chunks) {
  std::vector<int> rank_of_stage(static_cast<std::size_t>(ranks) * chunks);
  for (std::size_t s = 0; s < rank_of_stage.size(); ++s) rank_of_stage[s] = static_cast<int>(s) % ranks;
  return rank_of_stage;
}

std::vector<int> v_placement(int ranks) {
  std::vector<int> rank_of_stage(2 * static_cast<std::size_t>(ranks));
  for (int s = 0; s < 2 * ranks; ++s) rank_of_stage[s] = s < ranks ? s : 2 * ranks - 1 - s;
  return rank_of_stage;
}

std::size_t Schedule::num_ops() const {
  return std::accumulate(programs.begin(), programs.end(), std::size_t{0},
                         [](std::size_t n, const std::vector<Op>& program) { return n + program.size(); });
}

}  // namespace pipegrid
