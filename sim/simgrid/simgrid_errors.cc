#include "sim/simgrid/simgrid_errors.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include "common/exit_codes.h"

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

// SimGrid's log lines, as its root appender writes them: errors are kept, the rest goes to stderr.
// The first error is the cause; what follows it (SimGrid's "Current backtrace", "Exiting now") is not.
ssize_t on_log(void*, const char* text, std::size_t size) {
  static std::string pending;
  static bool continuing = false;  // the lines after the first error's, until the next tagged line
  pending.append(text, size);
  for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
    const std::string line = pending.substr(0, end);
    std::size_t tag = std::string::npos, tag_size = 0;
    for (const char* level : {"/CRITICAL] ", "/ERROR] "})
      if (const std::size_t at = line.find(level); at != std::string::npos) tag = at, tag_size = std::strlen(level);
    if (tag != std::string::npos) {
      continuing = g_message.empty();
      if (continuing) g_message = line.substr(tag + tag_size);
    } else if (!line.starts_with("[")) {
      // A message of several lines (an unsorted profile's dump): a few of them, joined.
      if (continuing && g_message.size() < 400) g_message += " | " + line;
    } else {
      continuing = false;
      (void)!write(STDERR_FILENO, (line + "\n").data(), line.size() + 1);
      continue;
    }
    prepare_final_line();
  }
  return static_cast<ssize_t>(size);
}

}  // namespace

SimGridErrors::SimGridErrors() {
  cookie_io_functions_t io{};
  io.write = on_log;
  if (std::FILE* stream = fopencookie(nullptr, "w", io)) {
    std::setvbuf(stream, nullptr, _IONBF, 0);
    xbt_log_appender_set(&_XBT_LOGV(XBT_LOG_ROOT_CAT), xbt_log_appender_stream(stream));
  }
  xbt_log_no_loc = 1;  // no backtraces of failed assertions on stderr, no file:line prefixes
  g_message.clear();
  g_loading.clear();
  prepare_final_line();
  std::signal(SIGABRT, on_abort);
}

SimGridErrors::~SimGridErrors() { std::signal(SIGABRT, SIG_DFL); }

void SimGridErrors::loading(const std::string& platform_file) {
  g_loading = platform_file;
  prepare_final_line();
}

void SimGridErrors::loaded() {
  g_loading.clear();
  prepare_final_line();
}

}  // namespace pipegrid::sim
