// One configuration run in a child process of the sweep, and the sweep's wait for its children.
#pragma once

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <sys/types.h>

#include "common/child_groups.h"
#include "sim/input/experiment_file.h"

namespace pipegrid::sweep {

/// What runs one configuration inside its own (forked) process: the experiment, whose output
/// directory and format the sweep has set; returns the exit code and maps its own errors to codes
/// (it must not throw).
using RunConfiguration = std::function<int(const input::Experiment& experiment)>;

/// Sleeping between polls costs a short run most of a poll interval; instead SIGCHLD stays blocked
/// while the sweep runs, and the sweep waits for it (or for the next timeout check) with sigtimedwait.
class ChildExits {
 public:
  ChildExits();
  ~ChildExits();
  ChildExits(const ChildExits&) = delete;
  ChildExits& operator=(const ChildExits&) = delete;

  /// Returns when a child may have exited or after `timeout`.
  void wait(std::chrono::milliseconds timeout) const;
  /// The mask the runs start with: the one before the sweep, SIGCHLD not blocked.
  const sigset_t& original_mask() const { return before_; }

 private:
  sigset_t child_{};
  sigset_t before_{};
};

/// Forks a child that runs `experiment` with `run`, its stdout and stderr in DIR/stdout.json and
/// DIR/stderr.txt; returns its pid. A fork rather than an exec of the binary: this process has already
/// loaded and relocated SimGrid and its dependencies (ns-3 among them), which is most of what a new
/// process costs a small configuration (docs/performance.md); the child still gets SimGrid's
/// process-wide state to itself, as no simulation has run here. The child runs in one of `groups`
/// (the sweep's: its runs end with it, on SIGINT, SIGTERM and SIGKILL) with signal mask `mask`.
pid_t start_run(const RunConfiguration& run, const input::Experiment& experiment, const std::filesystem::path& dir,
                ChildGroups& groups, const sigset_t& mask);

}  // namespace pipegrid::sweep
