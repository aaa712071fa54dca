#include "common/number_format.h"

#include <cmath>
#include <fmt/format.h>

namespace pipegrid {

std::string format_number(double value) {
  if (std::abs(value) < 1e10 && value == std::round(value)) return fmt::format("{:.0f}", value);
  return fmt::format("{:.10g}", value);
}

}  // namespace pipegrid
