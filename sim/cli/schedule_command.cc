#include "sim/cli/schedule_command.h"

#include <iostream>

#include "common/exit_codes.h"
#include "schedules/schedule_csv.h"
#include "sim/cli/schedule_output.h"
#include "sim/cli/timeline.h"
#include "sim/run/schedule_report.h"

namespace pipegrid::cli {

int print_schedule_outcome(const run::ScheduleOutcome& outcome, const std::string& format) {
  if (outcome.deadlock) {
    std::cerr << *outcome.deadlock << '\n';
    return kExitDeadlock;
  }
  if (!outcome.comparison) {
    const run::ScheduleRun& run = outcome.runs.front();
    if (format == "csv") write_schedule_csv(std::cout, run.schedule);
    else if (format == "timeline") draw_timeline(std::cout, run);
    else if (format == "json") std::cout << run::to_json(run).dump(2) << '\n';
    else print_table(std::cout, run);
    return kExitOk;
  }
  if (format == "json") {
    std::cout << run::comparison_json(outcome.runs, outcome.per_rank_share, outcome.skipped).dump(2) << '\n';
  } else if (format == "timeline") {
    // One scale for all, so that equal lengths mean equal times across the diagrams.
    double scale = 0;
    for (const run::ScheduleRun& run : outcome.runs) scale = std::max(scale, timeline_scale(run));
    for (std::size_t i = 0; i < outcome.runs.size(); ++i) {
      if (i) std::cout << '\n';
      draw_timeline(std::cout, outcome.runs[i], scale);
    }
    for (const std::string& reason : outcome.skipped) std::cout << "\nskipped " << reason << '\n';
  } else {
    print_comparison(std::cout, outcome.runs, outcome.per_rank_share, outcome.skipped);
  }
  return kExitOk;
}

}  // namespace pipegrid::cli
