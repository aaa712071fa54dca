#include "sim/sweep/child_runs.h"

#include <cstdio>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "common/exit_codes.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"

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
  redirect(dir / "stderr.txt", STDERR_FILENO);
  // stdout.json whole or not at all (atomic_file.h): the summary goes to its temporary, put in place
  // once the run has ended with every byte of it written.
  std::optional<output::AtomicFile> stdout_json;
  try {
    stdout_json.emplace(output::output_path(dir.string(), output::OutputFile::RunStdout));
  } catch (const std::exception& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
    _exit(kExitIoError);
  }
  if (dup2(stdout_json->fd(), STDOUT_FILENO) < 0) _exit(kExitInternalError);
  int code = kExitInternalError;
  try {
    code = run(experiment);
  } catch (...) {
    std::cerr << "pipegrid: internal error: a sweep run let an exception escape\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  try {
    if (code == kExitIoError) stdout_json->discard();  // what stdout took may be cut short
    else stdout_json->commit();
  } catch (const std::exception& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
    code = kExitIoError;
  }
  _exit(code);  // not exit(): the parent's objects (the open results file, …) are not the child's to finish
}

}  // namespace pipegrid::sweep
