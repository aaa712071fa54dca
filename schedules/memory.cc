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

std::vector<double> peak_activation_memory(const Schedule& schedule, const ActivationWeights& weights) {
  std::vector<double> peaks(schedule.ranks, 0);
  for (int r = 0; r < schedule.ranks; ++r) {
    double live = 0, peak = 0;
    for (const Op& op : schedule.programs[r]) {
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::F) live += weights.per_stage[op[i].stage];
      peak = std::max(peak, live);
      for (int i = 0; i < op.size(); ++i) {
        const int s = op[i].stage;
        switch (op[i].kind) {
          case Kind::F: break;
          case Kind::B: live -= weights.per_stage[s]; break;
          case Kind::I: live -= weights.per_stage[s] - weights.kept_for_weight_gradient[s]; break;
          case Kind::W: live -= weights.kept_for_weight_gradient[s]; break;
        }
      }
    }
    peaks[r] = peak;
  }
  return peaks;
}

}  // namespace pipegrid
