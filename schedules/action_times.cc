#include "schedules/action_times.h"

#include <cmath>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid {

void ActionTimes::validate() const {
  const auto check = [](const char* flag, double value) {
    if (!std::isfinite(value) || value < 0)
      throw InputError(fmt::format("{} {}: a time must be finite and not negative", flag, value));
  };
  check("--time-f", f);
  check("--time-b", b);
  check("--time-w", w);
  if (fb) check("--time-fb", *fb);
  if (w > b) throw InputError(fmt::format("--time-w {}: the weight part of a backward cannot exceed --time-b {}", w, b));
}

}  // namespace pipegrid
