#include "sim/platform/profile_check.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <utility>
#include <vector>

namespace pipegrid::platform {

namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\f\v");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\f\v") - first + 1);
}

std::optional<double> number(std::string_view word) {
  double value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc() || end != word.data() + word.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < line.size();) {
    const std::size_t begin = line.find_first_not_of(" \t", at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t", begin), line.size());
    out.push_back(line.substr(begin, end - begin));
    at = end;
  }
  return out;
}

std::string value_rule(ProfileKind kind, double value) {
  switch (kind) {
    case ProfileKind::Bandwidth:
      // SimGrid ignores a bandwidth of 0 in a transfer already under way: refuse it rather than lie.
      return value > 0 ? "" : "a bandwidth must be positive";
    case ProfileKind::Latency:
      return value >= 0 ? "" : "a latency must not be negative";
    // SimGrid 3.32 skips a negative value without a word (EngineImpl::solve), and a host at speed 0
    // would hold its computation for ever.
    case ProfileKind::Speed:
      return value > 0 ? "" : "a speed factor must be positive (1 is the host's declared speed)";
    case ProfileKind::State:
      return value == 0 || value == 1 ? "" : "a state must be 1 (on) or 0 (off)";
    case ProfileKind::Any:
      return "";
  }
  return "";
}

}  // namespace

std::string profile_rule(std::string_view text, ProfileKind kind) {
  double last_date = 0;
  std::optional<double> periodicity, loop_after;
  int line_number = 0;
  // SimGrid splits at either end-of-line character, so a CRLF file counts two lines per line; the
  // numbers here count lines as an editor shows them.
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    begin = end + 1;
    if (line.find('\r') != std::string_view::npos)
      return fmt::format("line {}: a carriage return inside a line", line_number);
    line = trim(line);
    if (line.empty() || line.front() == '#' || line.front() == '%') continue;
    const std::vector<std::string_view> w = words(line);
    const auto at = [&](const std::string& rule) { return fmt::format("line {}: {}", line_number, rule); };
    if (w[0] == "STOCHASTIC") return at("stochastic profiles are not reproducible runs; give dates and values");
    if (w[0] == "PERIODICITY" || w[0] == "LOOPAFTER") {
      const std::optional<double> value = w.size() == 2 ? number(w[1]) : std::nullopt;
      if (!value) return at(fmt::format("expected {} and a number", w[0]));
      (w[0] == "PERIODICITY" ? periodicity : loop_after) = *value;
      continue;
    }
    if (w.size() != 2) return at(fmt::format("expected DATE VALUE, got '{}'", line));
    const std::optional<double> date = number(w[0]), value = number(w[1]);
    if (!date || !value) return at(fmt::format("expected two numbers without units, got '{}'", line));
    if (*date < 0) return at("a date must not be negative");
    if (*date < last_date) return at(fmt::format("dates must not decrease, but {} follows {}", w[0], last_date));
    if (const std::string rule = value_rule(kind, *value); !rule.empty()) return at(rule);
    last_date = *date;
  }
  if (periodicity && loop_after) return "PERIODICITY and LOOPAFTER cannot both be given";
  if (periodicity && *periodicity > 0 && *periodicity < last_date)
    return fmt::format("PERIODICITY {} is shorter than the last date {}", *periodicity, last_date);
  if (loop_after && *loop_after < 0) return "LOOPAFTER must not be negative";
  return "";
}

namespace {
// The DATE VALUE lines of a checked profile, and whether it has a PERIODICITY or LOOPAFTER line.
std::vector<std::pair<double, double>> dated_values(std::string_view text, bool& repeats) {
  std::vector<std::pair<double, double>> out;
  repeats = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(begin, end - begin));
    begin = end + 1;
    const std::vector<std::string_view> w = words(line);
    if (w.empty() || w[0].front() == '#' || w[0].front() == '%') continue;
    // SimGrid loops on a PERIODICITY above 0 and on any LOOPAFTER (LegacyUpdateCb).
    if (w[0] == "PERIODICITY") repeats = repeats || (w.size() == 2 && number(w[1]).value_or(0) > 0);
    else if (w[0] == "LOOPAFTER") repeats = true;
    else if (w.size() == 2) out.emplace_back(number(w[0]).value_or(0), number(w[1]).value_or(0));
  }
  return out;
}
}  // namespace

bool profile_repeats(std::string_view text) {
  bool repeats = false;
  dated_values(text, repeats);
  return repeats;
}

std::vector<double> state_on_dates(std::string_view text) {
  bool repeats = false;
  std::vector<double> dates;
  for (const auto& [date, value] : dated_values(text, repeats))
    if (value > 0) dates.push_back(date);
  return dates;
}

std::optional<double> least_value(std::string_view text) {
  bool repeats = false;
  std::optional<double> least;
  for (const auto& [date, value] : dated_values(text, repeats)) least = std::min(least.value_or(value), value);
  return least;
}

std::optional<std::string> locate_profile(const std::string& name, const std::string& platform_path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_regular_file(name, error)) return name;
  const fs::path beside = fs::path(platform_path).parent_path() / name;
  if (fs::is_regular_file(beside, error)) return beside.string();
  return std::nullopt;
}

}  // namespace pipegrid::platform
