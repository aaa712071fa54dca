#include "sim/platform/simgrid_config.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>

namespace pipegrid::platform {

namespace {

enum class ConfigType { Boolean, Integer, Double, String };

struct ConfigKey {
  std::string_view key;
  ConfigType type;
  std::string_view choices;  // space-separated; "" when any value of the type goes
};

// SimGrid 3.32's keys that a pipegrid platform may set, with their types (from `--help` of a SimGrid
// 3.32 program) and, for models, optimisations and solvers, the values SimGrid accepts
// (src/surf/sg_platf.cpp, src/kernel/lmm/System.cpp, src/kernel/resource/*Model*). ns-3 and the
// parallel-task host model (ptask_L07) are left out: pipegrid's flows are neither.
constexpr std::array kKeys = {
    ConfigKey{"bmf/max-iterations", ConfigType::Integer, ""},
    ConfigKey{"bmf/precision", ConfigType::Double, ""},
    ConfigKey{"cpu/maxmin-selective-update", ConfigType::Boolean, ""},
    ConfigKey{"cpu/model", ConfigType::String, "Cas01"},
    ConfigKey{"cpu/optim", ConfigType::String, "Lazy TI Full"},
    ConfigKey{"cpu/solver", ConfigType::String, "maxmin fairbottleneck bmf"},
    ConfigKey{"disk/model", ConfigType::String, "default"},
    ConfigKey{"disk/solver", ConfigType::String, "maxmin fairbottleneck bmf"},
    ConfigKey{"host/model", ConfigType::String, "default compound"},
    ConfigKey{"host/solver", ConfigType::String, "fairbottleneck bmf"},
    ConfigKey{"maxmin/concurrency-limit", ConfigType::Integer, ""},
    ConfigKey{"maxmin/precision", ConfigType::Double, ""},
    ConfigKey{"network/TCP-gamma", ConfigType::Double, ""},
    ConfigKey{"network/bandwidth-factor", ConfigType::Double, ""},
    ConfigKey{"network/crosstraffic", ConfigType::Boolean, ""},
    ConfigKey{"network/latency-factor", ConfigType::Double, ""},
    ConfigKey{"network/loopback-bw", ConfigType::Double, ""},
    ConfigKey{"network/loopback-lat", ConfigType::Double, ""},
    ConfigKey{"network/maxmin-selective-update", ConfigType::Boolean, ""},
    ConfigKey{"network/model", ConfigType::String, "LV08 Constant SMPI IB CM02"},
    ConfigKey{"network/optim", ConfigType::String, "Lazy TI Full"},
    ConfigKey{"network/solver", ConfigType::String, "maxmin fairbottleneck bmf"},
    ConfigKey{"network/weight-S", ConfigType::Double, ""},
    ConfigKey{"surf/precision", ConfigType::Double, ""},
};

// The values SimGrid 3.32 runs pipegrid's jobs with, per numeric key (docs/source/Configuring_SimGrid.rst,
// src/simgrid/sg_config.cpp, src/kernel/lmm/System.cpp, src/surf/network_cm02.cpp): outside them
// SimGrid aborts, hangs, crashes or silently runs something else. The bounds on the precisions were
// measured on the 2-node DGX platform and a 2-GPU one (platforms/README.md).
struct Range {
  std::string_view key;
  double low;
  bool low_included;
  double high;  // included
  std::string_view rule;
};

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

constexpr std::array kRanges = {
    Range{"bmf/max-iterations", 1, true, kNoLimit, "must be at least 1 (SimGrid's BMF solver refuses fewer)"},
    Range{"bmf/precision", 0, false, 1e-2, "must be positive and at most 0.01"},
    // -1 is "no limit" and any positive count a limit; at 0 nothing may use a link or a host.
    Range{"maxmin/concurrency-limit", 1, true, kNoLimit,
          "must be -1 (no limit) or at least 1: at 0 no flow or computation can run, a false deadlock"},
    Range{"maxmin/precision", 0, false, 1e-2,
          "must be positive and at most 0.01 (SimGrid's solver fails from 1 on and crashes on a negative one)"},
    Range{"surf/precision", 0, false, 1e-3,
          "must be positive and at most 0.001 s (at 0 or below the run never ends; a coarser clock merges events: "
          "at 10 s a 9.2 s run takes 40.4 s)"},
    Range{"network/TCP-gamma", 0, true, kNoLimit, "must not be negative (0: no window bound)"},
    Range{"network/bandwidth-factor", 0, false, kNoLimit,
          "must be positive (it multiplies every link's bandwidth; SimGrid aborts on 0)"},
    Range{"network/latency-factor", 0, true, kNoLimit,
          "must not be negative (it multiplies every latency; SimGrid drops a negative latency without a word)"},
    Range{"network/weight-S", 0, true, kNoLimit, "must not be negative (SimGrid ignores a negative one)"},
    Range{"network/loopback-bw", 0, false, kNoLimit, "must be positive"},
    Range{"network/loopback-lat", 0, true, kNoLimit, "must not be negative"},
};

std::string range_rule(std::string_view key, std::string_view value) {
  const double number = std::strtod(std::string(value).c_str(), nullptr);
  if (key == "maxmin/concurrency-limit" && number == -1) return "";
  for (const Range& range : kRanges)
    if (range.key == key) {
      const bool above_low = range.low_included ? number >= range.low : number > range.low;
      return above_low && number <= range.high ? "" : std::string(range.rule);
    }
  return "";
}

struct Refused {
  std::string_view prefix;
  std::string_view reason;
};

// Keys (or families of keys) SimGrid takes that would change what a pipegrid run is.
constexpr std::array kRefused = {
    Refused{"contexts/", "pipegrid chooses how its actors run"},
    Refused{"cmonkey/", "the chaos monkey turns resources off at random, which pipegrid does not simulate"},
    Refused{"model-check/", "pipegrid does not run SimGrid's model checker"},
    Refused{"tracing", "pipegrid writes its own traces (--out DIR)"},
    Refused{"plugin", "pipegrid loads no SimGrid plugin"},
    Refused{"ns3/", "pipegrid does not run the ns-3 network model"},
    Refused{"smpi/", "pipegrid runs no SMPI program"},
    Refused{"debug/", "a SimGrid debugging setting"},
    Refused{"exception/", "a SimGrid debugging setting"},
    Refused{"help", "a SimGrid help flag"},
    Refused{"path", "it moves where SimGrid looks for profile files, which pipegrid's checks would not follow"},
};

bool whole_number(std::string_view text, bool integer) {
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  if (integer) {
    (void)std::strtol(copy.c_str(), &end, 10);
  } else {
    const double value = std::strtod(copy.c_str(), &end);
    if (!std::isfinite(value)) return false;
  }
  return errno == 0 && end != copy.c_str() && *end == '\0';
}

bool is_boolean(std::string_view text) {
  for (std::string_view word : {"yes", "on", "true", "1", "no", "off", "false", "0"})
    if (text == word) return true;
  return false;
}

bool among(std::string_view choices, std::string_view value) {
  for (std::size_t begin = 0; begin < choices.size();) {
    const std::size_t end = std::min(choices.find(' ', begin), choices.size());
    if (choices.substr(begin, end - begin) == value) return true;
    begin = end + 1;
  }
  return false;
}

std::string listed(std::string_view choices) {
  std::string text(choices);
  for (std::size_t at = 0; (at = text.find(' ', at)) != std::string::npos; at += 2) text.replace(at, 1, ", ");
  return text;
}

}  // namespace

std::string config_rule(std::string_view key, std::string_view value) {
  for (const Refused& refused : kRefused)
    if (key.starts_with(refused.prefix)) return fmt::format("not a setting pipegrid takes: {}", refused.reason);
  const ConfigKey* known = nullptr;
  for (const ConfigKey& k : kKeys)
    if (k.key == key) known = &k;
  if (!known) return "not a SimGrid 3.32 setting pipegrid takes (platforms/README.md lists them)";
  // SimGrid reads each prop as "key:value" and splits the value at blanks and commas.
  if (value.find_first_of(" \t\n,") != std::string_view::npos) return "a value cannot hold blanks or commas";
  switch (known->type) {
    case ConfigType::Boolean:
      if (!is_boolean(value)) return "must be yes, on, true, 1, no, off, false or 0";
      break;
    case ConfigType::Integer:
      if (!whole_number(value, true)) return "must be an integer";
      return range_rule(key, value);
    case ConfigType::Double:
      if (!whole_number(value, false)) return "must be a finite number, without a unit";
      return range_rule(key, value);
    case ConfigType::String:
      if (!known->choices.empty() && !among(known->choices, value))
        return fmt::format("must be one of {}", listed(known->choices));
      break;
  }
  return "";
}

}  // namespace pipegrid::platform
