// SimGrid's own log (XBT) routed through pipegrid's `simgrid` logger (common/log.h), so that it goes
// where pipegrid's logs go (stderr), in their format, at the level --log-level sets. XBT's root category
// writes to a stream whose every line is handed to the logger; its thresholds follow the logger's level
// (SimGrid has no trace level, and its own debug is very verbose, so pipegrid's levels sit one below):
//
//   --log-level  SimGrid threshold  shown
//   off          error              nothing
//   error        error              nothing: an error that ends the run is pipegrid's one line (simgrid_errors.h)
//   warn         warning            SimGrid's warnings
//   info         info               and its info lines
//   debug        verbose            and its verbose lines, its errors, its deadlock dump (ker_engine)
//   trace        debug              and its debug lines (what Debian's build kept of them)
//
// Below debug SimGrid's deadlock dump ("Oops! Deadlock detected…", category ker_engine) goes nowhere:
// pipegrid prints its own report of the waits. XBT's settings are process-wide, and pipegrid makes one
// engine per process (sweeps and pitfalls run their configurations in child processes, which set their
// own from the --log-level they are given).
#pragma once

#include <string_view>

namespace pipegrid::sim {

/// XBT's root category writes to pipegrid's stream (once per process) and its thresholds are set from
/// the `simgrid` logger's level, as the table above says. Call before an engine is made, so that what
/// the engine logs while it starts is routed too.
void route_simgrid_logs();

/// The stream alone, XBT's thresholds left as they are (an engine made without route_simgrid_logs:
/// the tests', SimGridErrors').
void capture_simgrid_logs();

/// Every line XBT writes, as it writes it: `priority` is XBT's (xbt_log_priority_error for an error),
/// `continuation` a line after the first of a message of several. SimGridErrors keeps the first error.
using SimGridLineListener = void (*)(int priority, std::string_view line, bool continuation);
void listen_to_simgrid_lines(SimGridLineListener listener);

}  // namespace pipegrid::sim
