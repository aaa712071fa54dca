// One run of the pipegrid binary itself in a child process: in a working directory of its own, its
// stdout and stderr in files, killed past a wall-time limit. A lesson runs several setups one after
// the other, and SimGrid keeps process-wide state, so each gets a fresh process (as a sweep's runs do).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pipegrid::cli {

struct ChildOutcome {
  int exit_code = -1;      // the child's exit code; -1 when it was killed or died of a signal
  bool timed_out = false;  // killed at the limit
};

/// The path of the running binary (/proc/self/exe).
std::string self_binary();

/// Runs `binary args…` in `cwd`, stdout into `out_file`, stderr into `err_file`; kills it (SIGKILL)
/// once it has run `timeout_seconds`. Throws std::runtime_error when it cannot start.
ChildOutcome run_child(const std::string& binary, const std::vector<std::string>& args,
                       const std::filesystem::path& cwd, const std::filesystem::path& out_file,
                       const std::filesystem::path& err_file, double timeout_seconds);

}  // namespace pipegrid::cli
