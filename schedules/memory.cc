#include "schedules/memory.h"

#include <algorithm>

namespace pipegrid {

std::vector<int> peak_activations(const Schedule& schedule) {
  std::vector<int> peaks(schedule.ranks, 0);
  for (int r = 0; r < schedule.ranks; ++r) {
    int live = 0, peak = 0;
    for (const Op& op : schedule.programs[r]) {
      for (int i = 0; i < op.size(); ++i) live += op[i].kind == Kind::F;
      peak = std::max(peak, live);
      for (int i = 0; i < op.size(); ++i) live -= op[i].kind == Kind::B || op[i].kind == Kind::W;
    }
    peaks[r] = peak;
  }
  return peaks;
}

}  // namespace pipegrid
