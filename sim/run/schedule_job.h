// `pipegrid schedule` and `pipegrid check` below the command line: their options resolved, the
// schedule generated (or read from CSV), checked for a deadlock and timed by the contention-free
// engine, and the run's files written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/comm_plan.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "sim/input/option_values.h"
#include "sim/run/run_spec.h"
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

/// What `schedule` and `check` run, read from their options once.
struct ScheduleCommandSpec {
  std::string name;       // schedule: --schedule, or "all"
  ScheduleParams params;  // schedule: --pp, --microbatches, --chunks
  std::string file;       // check: the CSV
  CsvPlacement placement = CsvPlacement::Inferred;  // check: --placement
  ActionTimes times;
  CommPlan plan = CommPlan::Framework;
  bool plan_given = false;  // a file with comm actions of its own takes none
  CommTimingOptions engine;
  /// With a model (--model, --layers, …): the run it times instead of `times`, as simulate would
  /// run it, with the contention-free engine.
  std::optional<RunSpec> model_run;
  std::string format;  // table, timeline, csv, json
  std::string out;     // the files' directory; empty: none
};

/// The spec of `command`'s values (schedule or check); `out_dir`, when given, replaces --out (--plot's
/// temporary directory).
ScheduleCommandSpec schedule_command_spec(const input::OptionValues& values, input::Command command,
                                          const std::optional<std::string>& out_dir = {});

/// `schedule`: generates the named schedule (or every one, with "all"), checks and times it, and
/// writes the spec's out directory's files — summary.json, schedule.csv and trace.csv, or on a
/// deadlock deadlock.json, schedule.csv and the partial trace. InputError for any bad input; a
/// deadlock is an outcome.
ScheduleOutcome run_schedule(const ScheduleCommandSpec& spec);

/// `check`: the same for a schedule read from a CSV file.
ScheduleOutcome run_check(const ScheduleCommandSpec& spec);

}  // namespace pipegrid::run
