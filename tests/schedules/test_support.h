// Small helpers shared by the schedule tests.
#pragma once

#include <sstream>
#include <string>

#include "schedules/schedule_csv.h"
#include "error_of.h"

namespace pipegrid::test_support {

/// A schedule from CSV text, as `pipegrid check` would read it from a file called `name`.
inline CsvSchedule csv_schedule(const std::string& text, CsvPlacement placement = CsvPlacement::Inferred,
                                const std::string& name = "test.csv") {
  std::istringstream in(text);
  return read_schedule_csv(in, name, placement);
}

}  // namespace pipegrid::test_support
