// --log-level, which every command takes: the process's loggers (common/log.h) are set from it before
// the command's work starts, and SimGrid's log follows them when an engine is made.
#pragma once

#include "sim/input/option_values.h"

namespace pipegrid::cli {

/// Sets every logger to the values' --log-level (given, or its default).
void use_log_level(const input::OptionValues& values);

}  // namespace pipegrid::cli
