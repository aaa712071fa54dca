#include "sim/simgrid/simgrid_errors.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include "common/exit_codes.h"
#include "sim/simgrid/simgrid_logs.h"

namespace pipegrid::sim {

namespace {

// What the abort handler prints, formatted ahead of time: a signal handler should only write().
char g_final_line[4096];
std::size_t g_final_length = 0;
int g_exit_code = kExitInternalError;
std::string g_loading;  // the platform file being loaded, or ""
std::string g_message;  // SimGrid's first error, its continuation lines joined with " | "

void prepare_final_line() {
  const std::string message = g_message.empty() ? std::string("aborted without a message") : g_message;
  std::string line = g_loading.empty()
                         ? "pipegrid: internal error: SimGrid: " + message + "\n"
                         : "pipegrid: error: " + g_loading + ": SimGrid cannot load it: " + message + "\n";
  g_exit_code = g_loading.empty() ? kExitInternalError : kExitInputError;
  g_final_length = std::min(line.size(), sizeof g_final_line - 1);
  std::memcpy(g_final_line, line.data(), g_final_length);
  if (g_final_length == sizeof g_final_line - 1) g_final_line[g_final_length - 1] = '\n';
}

void on_abort(int) {
  (void)!write(STDERR_FILENO, g_final_line, g_final_length);
  _exit(g_exit_code);
}

// SimGrid's log lines, as its root appender writes them (simgrid_logs.h): the first error is the cause;
// what follows it (SimGrid's "Current backtrace", "Exiting now") is not.
void take_line(int priority, std::string_view line, bool continuation) {
  static bool continuing = false;  // the lines after the first error's, until the next message
  if (!continuation) {
    continuing = priority >= xbt_log_priority_error && g_message.empty();
    if (!continuing) return;
    g_message = line;
  } else {
    // A message of several lines (an unsorted profile's dump): a few of them, joined.
    if (!continuing || g_message.size() >= 400) return;
    g_message += " | " + std::string(line);
  }
  prepare_final_line();
}

}  // namespace

SimGridErrors::SimGridErrors() {
  capture_simgrid_logs();
  listen_to_simgrid_lines(take_line);
  xbt_log_no_loc = 1;  // no backtraces of failed assertions on stderr, no file:line prefixes
  g_message.clear();
  g_loading.clear();
  prepare_final_line();
  std::signal(SIGABRT, on_abort);
}

SimGridErrors::~SimGridErrors() {
  listen_to_simgrid_lines(nullptr);
  std::signal(SIGABRT, SIG_DFL);
}

void SimGridErrors::loading(const std::string& platform_file) {
  g_loading = platform_file;
  prepare_final_line();
}

void SimGridErrors::loaded() {
  g_loading.clear();
  prepare_final_line();
}

}  // namespace pipegrid::sim
