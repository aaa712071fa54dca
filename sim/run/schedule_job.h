// `pipegrid schedule` and `pipegrid check` below the command line: their options resolved, the
// schedule generated (or read from CSV), checked for a deadlock and timed by the contention-free
// engine, and the run's files written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/input/option_values.h"
#include "sim/run/schedule_run.h"

namespace pipegrid::run {

/// What a schedule or check run produced.
struct ScheduleOutcome {
  std::optional<std::string>
      deadlock;                   // the report of the waits, ending "fix: …" (exit code 3); nothing else is set then
  std::vector<ScheduleRun> runs;  // one, or with --schedule all every schedule, by makespan
  bool comparison = false;        // --schedule all
  ActionTimes per_rank_share;     // with --schedule all: the times as given (a rank's share)
  std::vector<std::string> skipped;  // with --schedule all: the schedules that refused (p, m), and why
};

/// `schedule`: generates the named schedule (or every one, with --schedule all), checks and times it,
/// and writes --out DIR's files (or `out_dir`'s, when given: --plot's temporary one) — summary.json,
/// schedule.csv and trace.csv, or on a deadlock deadlock.json, schedule.csv and the partial trace.
/// InputError for any bad input; a deadlock is an outcome.
ScheduleOutcome run_schedule(const input::OptionValues& values, const std::optional<std::string>& out_dir = {});

/// `check`: the same for a schedule read from a CSV file.
ScheduleOutcome run_check(const input::OptionValues& values, const std::optional<std::string>& out_dir = {});

}  // namespace pipegrid::run
