#include "common/log.h"

#include <memory>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <stdexcept>
#include <string>

namespace pipegrid::log {

namespace {

// Warnings as pipegrid has always printed them (tests and users read that text); everything else
// tagged with its logger and level.
class LevelPattern final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    (msg.level == spdlog::level::warn ? warning_ : tagged_).format(msg, dest);
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<LevelPattern>(); }

 private:
  spdlog::pattern_formatter warning_{"pipegrid: warning: %v"};
  spdlog::pattern_formatter tagged_{"[pipegrid:%n] [%l] %v"};
};

constexpr auto kDefaultLevel = spdlog::level::warn;

struct Loggers {
  std::shared_ptr<spdlog::logger> cli, run, platform, schedules, exec, network, sweep, simgrid;

  Loggers() {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    sink->set_formatter(std::make_unique<LevelPattern>());
    const auto make = [&](const char* name) {
      auto logger = std::make_shared<spdlog::logger>(name, sink);
      logger->set_level(kDefaultLevel);
      return logger;
    };
    cli = make("cli");
    run = make("run");
    platform = make("platform");
    schedules = make("schedules");
    exec = make("exec");
    network = make("network");
    sweep = make("sweep");
    simgrid = make("simgrid");
  }
  void each(spdlog::level::level_enum level) const {
    for (const auto* logger : {&cli, &run, &platform, &schedules, &exec, &network, &sweep, &simgrid})
      (*logger)->set_level(level);
  }
};

// Never destroyed: SimGrid logs from its own exit handlers (libsimgrid's, which run after this
// file's statics would be gone), through the `simgrid` logger.
const Loggers& loggers() {
  static const Loggers* made = new Loggers;
  return *made;
}

}  // namespace

spdlog::logger& cli() { return *loggers().cli; }
spdlog::logger& run() { return *loggers().run; }
spdlog::logger& platform() { return *loggers().platform; }
spdlog::logger& schedules() { return *loggers().schedules; }
spdlog::logger& exec() { return *loggers().exec; }
spdlog::logger& network() { return *loggers().network; }
spdlog::logger& sweep() { return *loggers().sweep; }
spdlog::logger& simgrid() { return *loggers().simgrid; }

spdlog::level::level_enum level_named(std::string_view name) {
  using enum spdlog::level::level_enum;
  for (const auto& [text, level] : {std::pair<std::string_view, spdlog::level::level_enum>{"off", off},
                                    {"error", err},
                                    {"warn", warn},
                                    {"info", info},
                                    {"debug", debug},
                                    {"trace", trace}})
    if (name == text) return level;
  throw std::invalid_argument("not a log level: " + std::string(name));
}

void set_level(spdlog::level::level_enum level) { loggers().each(level); }

}  // namespace pipegrid::log
