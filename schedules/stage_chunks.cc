#include "schedules/stage_chunks.h"

namespace pipegrid {

std::vector<int> chunks_of_stages(const StageLayout& layout) {
  std::vector<int> chunk(layout.rank_of_stage.size());
  std::vector<int> held;  // stages seen so far per rank
  for (std::size_t s = 0; s < chunk.size(); ++s) {
    const auto rank = static_cast<std::size_t>(layout.rank_of_stage[s]);
    if (rank >= held.size()) held.resize(rank + 1, 0);
    chunk[s] = held[rank]++;
  }
  return chunk;
}

std::string_view direction_of(const Schedule& schedule, int stage) {
  if (schedule.name != "dualpipe" && schedule.name != "dualpipev") return "";
  int first = stage;
  while (schedule.layout.prev[first] >= 0) first = schedule.layout.prev[first];
  return schedule.rank_of(first) == 0 ? "down" : "up";
}

}  // namespace pipegrid
