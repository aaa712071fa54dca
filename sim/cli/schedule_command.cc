#include "sim/cli/schedule_command.h"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <optional>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/log.h"
#include "schedules/schedule_csv.h"
#include "sim/cli/gantt_plot.h"
#include "sim/cli/schedule_output.h"
#include "sim/cli/timeline.h"
#include "sim/run/schedule_report.h"

namespace pipegrid::cli {

namespace {

// A directory under the system's temporary one, removed with everything in it when done.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pipegrid-plot-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw InputError("--plot: cannot create a temporary directory");
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

run::ScheduleOutcome run_command(const input::OptionValues& values, input::Command command,
                                 const std::optional<std::string>& out_dir = {}) {
  const run::ScheduleCommandSpec spec = run::schedule_command_spec(values, command, out_dir);
  return command == input::Command::Check ? run::run_check(spec) : run::run_schedule(spec);
}

}  // namespace

int print_schedule_outcome(const run::ScheduleOutcome& outcome, const std::string& format, long width) {
  if (outcome.deadlock) {
    std::cerr << *outcome.deadlock << '\n';
    return kExitDeadlock;
  }
  if (!outcome.comparison) {
    const run::ScheduleRun& run = outcome.runs.front();
    if (format == "csv") write_schedule_csv(std::cout, run.schedule);
    else if (format == "timeline") draw_timeline(std::cout, run, width);
    else if (format == "json") std::cout << run::to_json(run).dump(2) << '\n';
    else print_table(std::cout, run);
    return kExitOk;
  }
  if (format == "json") {
    std::cout << run::comparison_json(outcome.runs, outcome.per_rank_share, outcome.skipped).dump(2) << '\n';
  } else if (format == "timeline") {
    // One scale for all, so that equal lengths mean equal times across the diagrams.
    const double scale = timeline_scale(outcome.runs, width);
    for (std::size_t i = 0; i < outcome.runs.size(); ++i) {
      if (i) std::cout << '\n';
      draw_timeline(std::cout, outcome.runs[i], width, scale);
    }
    for (const std::string& reason : outcome.skipped) std::cout << '\n' << wrap_text("skipped " + reason, width);
  } else {
    print_comparison(std::cout, outcome.runs, outcome.per_rank_share, outcome.skipped);
  }
  return kExitOk;
}

int run_schedule_command(const input::OptionValues& values, input::Command command) {
  const std::string& format = values.text("format");
  const long width = values.has("width") ? static_cast<long>(values.integer("width")) : default_timeline_width();
  if (!values.has("plot")) return print_schedule_outcome(run_command(values, command), format, width);

  const std::string& png = values.text("plot");
  if (command == input::Command::Schedule && values.text("schedule") == "all")
    throw InputError(fmt::format("--plot {}: draws one schedule; choose one with --schedule NAME", png));
  check_gantt_plotter(png);
  make_plot_folder(png);
  std::optional<TemporaryDirectory> temporary;
  std::optional<std::string> out_dir;
  if (!values.has("out")) {
    temporary.emplace();
    const std::string name = command == input::Command::Check
                                 ? std::filesystem::path(values.text("file")).stem().string()
                                 : values.text("schedule");
    out_dir = temporary->path() + "/" + (name.empty() ? std::string("schedule") : name);
  }
  const int code = print_schedule_outcome(run_command(values, command, out_dir), format, width);
  const std::string dir = out_dir ? *out_dir : values.text("out");
  if (const std::string why = draw_gantt_chart(dir + "/trace.csv", png); !why.empty())
    log::cli().warn("--plot {}: the Gantt chart could not be drawn: {}", png, why);
  return code;
}

}  // namespace pipegrid::cli
