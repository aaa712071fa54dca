#include "sim/cli/child_process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "common/child_groups.h"

namespace pipegrid::cli {

namespace {

// What the child reports down the pipe when it cannot become `binary`: the step and its errno.
struct StartFailure {
  int step = 0;  // 0: its output files, 1: its working directory, 2: exec
  int error = 0;
};

[[noreturn]] void report_failure(int report_fd, int step) {
  const StartFailure failure{step, errno};
  (void)!write(report_fd, &failure, sizeof failure);
  _exit(127);
}

// The child's side, after the fork: async-signal-safe calls only.
[[noreturn]] void become(const ChildCommand& command, char* const* argv, int report_fd) {
  const auto redirect = [&](const std::filesystem::path& file, int fd) {
    if (file.empty()) return;
    const int opened = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (opened < 0 || dup2(opened, fd) < 0) report_failure(report_fd, 0);
  };
  redirect(command.out_file, STDOUT_FILENO);
  redirect(command.err_file, STDERR_FILENO);
  if (!command.cwd.empty() && chdir(command.cwd.c_str()) != 0) report_failure(report_fd, 1);
  execv(argv[0], argv);
  report_failure(report_fd, 2);
}

// Waits for the report of a failed start: none (end of file when exec closes the pipe) is success.
void check_started(const ChildCommand& command, int report_fd, pid_t pid) {
  StartFailure failure;
  ssize_t n;
  while ((n = read(report_fd, &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  close(report_fd);
  if (n != static_cast<ssize_t>(sizeof failure)) return;
  waitpid(pid, nullptr, 0);
  static constexpr const char* kSteps[] = {"open its output files", "enter its working directory", "execute it"};
  throw std::runtime_error(fmt::format("cannot start {}: could not {}: {}", command.binary, kSteps[failure.step],
                                       std::strerror(failure.error)));
}

}  // namespace

std::string self_binary() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("pipegrid") : path.string();
}

ChildOutcome run_child(const ChildCommand& command) {
  // Everything the child needs is prepared before the fork: after it, only async-signal-safe calls.
  std::vector<std::string> words = {command.binary};
  words.insert(words.end(), command.args.begin(), command.args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  ChildGroups groups(Grouping::PerChild);
  pid_t pid = 0;
  try {
    pid = groups.fork_child();
  } catch (...) {
    close(report[0]);
    close(report[1]);
    throw;
  }
  if (pid == 0) {
    close(report[0]);
    become(command, argv.data(), report[1]);
  }
  close(report[1]);
  check_started(command, report[0], pid);

  const auto start = std::chrono::steady_clock::now();
  const auto limit = std::chrono::duration<double>(command.timeout_seconds);
  ChildOutcome outcome;
  for (;;) {
    // WNOWAIT: seen ended but not reaped, so that its group's number is not reused before the kill below.
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR)
      throw std::runtime_error(std::string("waitid: ") + std::strerror(errno));
    if (info.si_pid == pid) break;
    if (command.timeout_seconds > 0 && std::chrono::steady_clock::now() - start > limit) {
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // The whole group: at a timeout the child and all it started, otherwise what it left running.
  kill(-groups.group_of(pid), SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  groups.reaped(pid);
  if (!outcome.timed_out && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

}  // namespace pipegrid::cli
