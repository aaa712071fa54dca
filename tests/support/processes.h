// The processes still alive whose command line holds a given text (a test's unique --out path, a
// marker argument), read from /proc as `pgrep -f` does: how a test finds what a killed parent left.
#pragma once

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace pipegrid::test_support {

/// Live processes (zombies left out: they have ended, only their exit status waits for a reaper)
/// whose NUL-separated command line contains `text`, this process excepted. A process in the midst of
/// exiting shows an empty command line: a test that must see a child's end waits for it (waitpid).
inline std::vector<pid_t> processes_with(const std::string& text) {
  std::vector<pid_t> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == getpid()) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    const std::string words((std::istreambuf_iterator<char>(cmdline)), {});
    if (words.find(text) == std::string::npos) continue;
    // /proc/PID/stat: "PID (COMMAND) STATE …"; the command may hold blanks and parentheses.
    std::ifstream stat_file(entry.path() / "stat");
    const std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
    const std::size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;
    found.push_back(pid);
  }
  return found;
}

/// The parent of `pid` (/proc/PID/stat's fourth field), or 0 when it is gone.
inline pid_t parent_of(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  char state = 0;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

/// Polls `condition` every 50 ms for up to `limit`; true as soon as it holds. Tests wait for events
/// this way and never assert how long they took.
template <typename Condition>
bool eventually(Condition condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

/// Reaps this process's ended children until it has none left (waitpid says ECHILD), for up to `limit`:
/// how a subreaper knows that every process it adopted has ended. Their exit codes, in reaping order (-1:
/// ended by a signal), go to `codes`; false when some child outlived `limit`.
inline bool reap_every_child(std::vector<int>& codes, std::chrono::seconds limit = std::chrono::seconds(60)) {
  return eventually(
      [&] {
        int status = 0;
        for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;)
          codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;
      },
      limit);
}

/// The data rows of a CSV file (its lines less the header; 0 when it is missing).
inline std::size_t csv_data_rows(const std::string& path) {
  std::ifstream in(path);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines == 0 ? 0 : lines - 1;
}

/// The children of `parent` among the processes whose command line holds `text`.
inline std::vector<pid_t> children_with(pid_t parent, const std::string& text) {
  std::vector<pid_t> children;
  for (pid_t pid : processes_with(text))
    if (parent_of(pid) == parent) children.push_back(pid);
  return children;
}

/// Ends (SIGKILL) every process whose command line holds `text`: a failed test's leftovers, so that
/// the next test does not meet them.
inline void kill_all_with(const std::string& text) {
  for (int round = 0; round < 100; ++round) {
    const std::vector<pid_t> left = processes_with(text);
    if (left.empty()) return;
    for (pid_t pid : left) kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace pipegrid::test_support
