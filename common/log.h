// pipegrid's logs: one named spdlog logger per layer, all writing to one stderr sink (never stdout, so
// that `--format json` stays JSON at every level), held at the level --log-level sets before a command
// runs. A log is what pipegrid did on the way to a result; the result itself (stdout, the one-line
// errors of exit codes 2, 3, 4 and 70) is never a log line. Warnings keep the text users have always
// seen, "pipegrid: warning: …"; every other line names its logger and level, "[pipegrid:exec] [debug] …".
#pragma once

#include <spdlog/logger.h>
#include <string_view>

namespace pipegrid::log {

spdlog::logger& cli();        // the command line
spdlog::logger& run();        // the run layer: a run resolved (layout, costs), its warnings
spdlog::logger& platform();   // platform files read, generated, perturbed
spdlog::logger& schedules();  // schedules lowered and checked
spdlog::logger& exec();       // the SimGrid executor: actors, the simulated end
spdlog::logger& network();    // flows
spdlog::logger& sweep();      // a sweep's runs
spdlog::logger& simgrid();    // SimGrid's own log (XBT), routed (sim/simgrid/simgrid_logs.h)

/// The levels --log-level takes, from quietest: off, error, warn, info, debug, trace.
/// Throws std::invalid_argument for any other name (the schema has checked it by then).
spdlog::level::level_enum level_named(std::string_view name);
/// Every logger at `level` (warn until set).
void set_level(spdlog::level::level_enum level);

}  // namespace pipegrid::log
