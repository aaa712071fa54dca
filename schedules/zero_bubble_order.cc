#include "schedules/zero_bubble_order.h"

#include <algorithm>

namespace pipegrid {

std::vector<Op> split_backward_program(int stage, int microbatches, SplitBackwardShape shape) {
  const int m = microbatches;
  const int first = std::min(shape.forwards_first, m);
  const int lag = std::min(shape.weight_lag, m);
  std::vector<Op> program;
  program.reserve(3 * static_cast<std::size_t>(m));
  for (int mb = 0; mb < first; ++mb) program.emplace_back(Action{stage, mb, Kind::F});
  for (int mb = 0; mb < m; ++mb) {
    program.emplace_back(Action{stage, mb, Kind::I});
    if (mb >= lag) program.emplace_back(Action{stage, mb - lag, Kind::W});
    if (first + mb < m) program.emplace_back(Action{stage, first + mb, Kind::F});
  }
  for (int mb = m - lag; mb < m; ++mb) program.emplace_back(Action{stage, mb, Kind::W});
  return program;
}

}  // namespace pipegrid
