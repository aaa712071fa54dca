#include "sim/simgrid/simgrid_logs.h"

#include <cstdio>
#include <string>
#include <xbt/log.h>

#include "common/log.h"

namespace pipegrid::sim {

namespace {

// XBT writes each message as this layout makes it: fields after a unit separator, which no message
// starts with, so that a line without one is the continuation of a message of several lines.
constexpr char kField = '\x1f';
constexpr const char* kLayout = "\x1f%c\x1f%p\x1f%a\x1f%r\x1f%m%n";

SimGridLineListener g_listener = nullptr;

struct Message {
  int priority = xbt_log_priority_info;
  spdlog::level::level_enum level = spdlog::level::info;
  std::string where;  // "SimGrid xbt_cfg (t = 0.000000 s, maestro)"
};

// What the stream keeps between writes. Never destroyed: SimGrid logs from its exit handlers, which
// may run after this file's statics are gone.
struct Stream {
  std::string pending;  // the start of a line not ended yet
  Message message;      // the message being written
};
Stream& stream() {
  static Stream* state = new Stream;
  return *state;
}

int priority_named(std::string_view name) {
  constexpr std::pair<std::string_view, e_xbt_log_priority_t> kNames[] = {
      {"TRACE", xbt_log_priority_trace},      {"DEBUG", xbt_log_priority_debug},
      {"VERBOSE", xbt_log_priority_verbose},  {"INFO", xbt_log_priority_info},
      {"WARNING", xbt_log_priority_warning},  {"ERROR", xbt_log_priority_error},
      {"CRITICAL", xbt_log_priority_critical}};
  for (const auto& [text, priority] : kNames)
    if (name == text) return priority;
  return xbt_log_priority_info;
}

// SimGrid's debug and trace are pipegrid's trace, its verbose pipegrid's debug.
spdlog::level::level_enum level_of(int priority) {
  if (priority <= xbt_log_priority_debug) return spdlog::level::trace;
  if (priority == xbt_log_priority_verbose) return spdlog::level::debug;
  if (priority == xbt_log_priority_info) return spdlog::level::info;
  if (priority == xbt_log_priority_warning) return spdlog::level::warn;
  return spdlog::level::err;
}

void show(const Message& message, std::string_view text) {
  spdlog::logger& logger = log::simgrid();
  // SimGrid's errors are held back above debug: one that ends the run is pipegrid's one line already.
  if (message.level == spdlog::level::err && !logger.should_log(spdlog::level::debug)) return;
  if (logger.should_log(message.level)) logger.log(message.level, "{}: {}", message.where, text);
}

void take_line(std::string_view line) {
  Message& message = stream().message;
  if (line.empty() || line.front() != kField) {
    if (g_listener) g_listener(message.priority, line, true);
    show(message, line);
    return;
  }
  std::string_view fields[5];
  line.remove_prefix(1);
  for (int i = 0; i < 4; ++i) {
    const std::size_t end = line.find(kField);
    fields[i] = line.substr(0, end);
    line = end == std::string_view::npos ? std::string_view() : line.substr(end + 1);
  }
  fields[4] = line;
  const auto& [category, priority, actor, time, text] = fields;
  message.priority = priority_named(priority);
  message.level = level_of(message.priority);
  message.where = "SimGrid " + std::string(category) + " (t = " + std::string(time) + " s" +
                  (actor.empty() ? std::string() : ", " + std::string(actor)) + ")";
  if (g_listener) g_listener(message.priority, text, false);
  show(message, text);
}

ssize_t on_write(void*, const char* text, std::size_t size) {
  std::string& pending = stream().pending;
  pending.append(text, size);
  for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1))
    take_line(std::string_view(pending).substr(0, end));
  return static_cast<ssize_t>(size);
}

const char* threshold_of(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "debug";
    case spdlog::level::debug:
      return "verbose";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warning";
    default:
      return "error";  // off and error: errors are still needed for pipegrid's one line
  }
}

}  // namespace

void capture_simgrid_logs() {
  static const bool installed = [] {
    cookie_io_functions_t io{};
    io.write = on_write;
    std::FILE* stream = fopencookie(nullptr, "w", io);
    if (!stream) return false;
    std::setvbuf(stream, nullptr, _IONBF, 0);
    xbt_log_appender_set(&_XBT_LOGV(XBT_LOG_ROOT_CAT), xbt_log_appender_stream(stream));
    xbt_log_layout_set(&_XBT_LOGV(XBT_LOG_ROOT_CAT), xbt_log_layout_format_new(kLayout));
    return true;
  }();
  (void)installed;
}

void route_simgrid_logs() {
  capture_simgrid_logs();
  const spdlog::level::level_enum level = log::simgrid().level();
  // XBT says each threshold it sets (category "log"): that is pipegrid's doing, not SimGrid's news.
  xbt_log_control_set("log.thresh:warning");
  xbt_log_control_set((std::string("root.thresh:") + threshold_of(level)).c_str());
  if (level > spdlog::level::debug) xbt_log_control_set("ker_engine.app:file:/dev/null");
}

void listen_to_simgrid_lines(SimGridLineListener listener) { g_listener = listener; }

}  // namespace pipegrid::sim
