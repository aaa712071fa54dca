#include "sim/cli/gantt_plot.h"

#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>
#include <vector>

#include "common/input_error.h"
#include "sim/cli/child_process.h"

namespace pipegrid::cli {

namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string plot_script(const char* name) { return std::string(PIPEGRID_SOURCE_DIR) + "/experiments/plot/" + name; }
std::string gantt_script() { return plot_script("gantt.py"); }

// Runs python3 with `args` and waits: "" when it exited 0, else what happened. `quiet` sends its
// output to /dev/null. A child of this process's making (child_process.h): it ends when this does.
std::string run_python(std::vector<std::string> args, bool quiet) {
  ChildCommand command{.binary = kPython, .args = std::move(args)};
  if (quiet) command.out_file = command.err_file = "/dev/null";
  ChildOutcome outcome;
  try {
    outcome = run_child(command);
  } catch (const std::runtime_error&) {
    return fmt::format("{} could not be started", kPython);
  }
  if (outcome.exit_code < 0) return "it was killed";
  if (outcome.exit_code != 0) return fmt::format("it exited with status {}", outcome.exit_code);
  return "";
}

}  // namespace

void check_gantt_plotter(const std::string& flag_value) {
  if (access(kPython, X_OK) != 0)
    throw InputError(fmt::format("--plot {}: draws with {}, which is not installed", flag_value, kPython));
  if (access(gantt_script().c_str(), R_OK) != 0)
    throw InputError(fmt::format("--plot {}: draws with {}, which is missing", flag_value, gantt_script()));
  if (!run_python({"-c", "import matplotlib, pandas"}, true).empty())
    throw InputError(
        fmt::format("--plot {}: gantt.py needs matplotlib and pandas for {} (Debian's "
                    "python3-matplotlib and python3-pandas, scripts/install-deps.sh)",
                    flag_value, kPython));
}

void make_plot_folder(const std::string& png) {
  const std::filesystem::path folder = std::filesystem::path(png).parent_path();
  if (folder.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw InputError(fmt::format("--plot {}: cannot create {}: {}", png, folder.string(), error.message()));
}

std::string draw_gantt_chart(const std::string& trace_csv, const std::string& png, const std::string& wait_for_png) {
  std::vector<std::string> args = {gantt_script(), trace_csv, "--out", png};
  if (!wait_for_png.empty()) args.insert(args.end(), {"--wait-for", wait_for_png});
  const std::string why = run_python(std::move(args), false);
  return why.empty() ? why : "gantt.py: " + why;
}

std::string draw_pareto(const std::string& plan_csv, const std::string& png) {
  const std::string why = run_python({plot_script("pareto.py"), plan_csv, "--out", png}, false);
  return why.empty() ? why : "pareto.py: " + why;
}

}  // namespace pipegrid::cli
