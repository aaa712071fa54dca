// A command in a child process, waited for: a lesson's run of the pipegrid binary (in a working
// directory of its own, its stdout and stderr in files, killed past a wall-time limit; a lesson runs
// several setups one after the other, and SimGrid keeps process-wide state, so each gets a fresh
// process), or a plot script. The child and whatever it starts run in a process group of their own,
// ended with this process (common/child_groups.h) and with the child: nothing it started outlives it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pipegrid::cli {

struct ChildOutcome {
  int exit_code = -1;      // the child's exit code; -1 when it was killed or died of a signal
  bool timed_out = false;  // killed at the limit
};

struct ChildCommand {
  std::string binary{};  // a path: it is exec'd as it is, not looked up in PATH
  std::vector<std::string> args{};
  std::filesystem::path cwd{};       // empty: this process's
  std::filesystem::path out_file{};  // its stdout; empty: this process's
  std::filesystem::path err_file{};  // its stderr; empty: this process's
  double timeout_seconds = 0;        // its group is killed (SIGKILL) once it has run this long; 0: no limit
};

/// The path of the running binary (/proc/self/exe).
std::string self_binary();

/// Runs `command` and waits for it; then kills what is left of its process group (processes it started
/// in the background). Throws std::runtime_error when it cannot start (its files, its folder, exec).
ChildOutcome run_child(const ChildCommand& command);

}  // namespace pipegrid::cli
