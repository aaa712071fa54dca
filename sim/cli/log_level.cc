#include "sim/cli/log_level.h"

#include "common/log.h"

namespace pipegrid::cli {

void use_log_level(const input::OptionValues& values) { log::set_level(log::level_named(values.text("log-level"))); }

}  // namespace pipegrid::cli
