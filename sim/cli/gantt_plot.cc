#include "sim/cli/gantt_plot.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "common/input_error.h"

extern char** environ;

namespace pipegrid::cli {

namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string gantt_script() { return std::string(PIPEGRID_SOURCE_DIR) + "/experiments/plot/gantt.py"; }

// Runs python3 with `args` and waits: "" when it exited 0, else what happened. `quiet` sends its
// output to /dev/null.
std::string run_python(std::vector<std::string> args, bool quiet) {
  args.insert(args.begin(), kPython);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  std::cout.flush();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, kPython, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return fmt::format("{} could not be started", kPython);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "it could not be waited for";
  if (!WIFEXITED(status)) return "it was killed";
  if (WEXITSTATUS(status) != 0) return fmt::format("it exited with status {}", WEXITSTATUS(status));
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

std::string draw_gantt_chart(const std::string& trace_csv, const std::string& png, const std::string& wait_for_png) {
  std::vector<std::string> args = {gantt_script(), trace_csv, "--out", png};
  if (!wait_for_png.empty()) args.insert(args.end(), {"--wait-for", wait_for_png});
  const std::string why = run_python(std::move(args), false);
  return why.empty() ? why : "gantt.py: " + why;
}

}  // namespace pipegrid::cli
