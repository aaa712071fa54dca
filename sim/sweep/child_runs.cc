#include "sim/sweep/child_runs.h"
#include "sim/output/output_files.h"

#include <cstdio>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

#include "common/exit_codes.h"

namespace pipegrid::sweep {

ChildExits::ChildExits() {
  sigemptyset(&child_);
  sigaddset(&child_, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &child_, &before_);
}

ChildExits::~ChildExits() {
  // A SIGCHLD still pending would be delivered on unblocking: take it first (its default is ignore).
  const timespec now{0, 0};
  while (sigtimedwait(&child_, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &before_, nullptr);
}

void ChildExits::wait(std::chrono::milliseconds timeout) const {
  const timespec limit{static_cast<time_t>(timeout.count() / 1000),
                       static_cast<long>(timeout.count() % 1000) * 1000000};
  sigtimedwait(&child_, nullptr, &limit);
}

pid_t start_run(const RunConfiguration& run, const input::Experiment& experiment, const std::filesystem::path& dir,
                ChildGroups& groups, const sigset_t& mask) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or the child would write this process's buffered output again
  pid_t pid = 0;
  try {
    pid = groups.fork_child(&mask);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("sweep: cannot start a run: {}", e.what()));
  }
  if (pid > 0) return pid;

  const auto redirect = [](const std::filesystem::path& file, int fd) {
    const int opened = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (opened < 0 || dup2(opened, fd) < 0) _exit(kExitInternalError);
    close(opened);
  };
  redirect(output::output_path(dir.string(), output::OutputFile::RunStdout), STDOUT_FILENO);
  redirect(dir / "stderr.txt", STDERR_FILENO);
  int code = kExitInternalError;
  try {
    code = run(experiment);
  } catch (...) {
    std::cerr << "pipegrid: internal error: a sweep run let an exception escape\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(code);  // not exit(): the parent's objects (the open results file, …) are not the child's to finish
}

}  // namespace pipegrid::sweep
