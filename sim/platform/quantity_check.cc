#include "sim/platform/quantity_check.h"

#include <cmath>

#include "sim/platform/units.h"

namespace pipegrid::platform {

std::string unreadable(const std::string& what, const std::string& text, const char* examples) {
  return fmt::format("{} must be a number with a SimGrid unit such as {}, got {}", what, examples,
                     text.empty() ? "nothing" : text);
}

double positive_quantity(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                         const std::string& text, std::optional<double> value, const char* examples) {
  if (!value) source.fail(node, unreadable(what, text, examples));
  if (!(*value > 0) || !std::isfinite(*value)) source.fail(node, fmt::format("{} must be positive, got {}", what, text));
  return *value;
}

double first_pstate_speed(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                          const std::string& text) {
  double speed = 0;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::string pstate = text.substr(begin, end - begin);
    pstate.erase(0, pstate.find_first_not_of(' '));
    pstate.erase(pstate.find_last_not_of(' ') + 1);
    // The first pstate, where a host starts, computes; later ones may be 0 (SimGrid's energy examples
    // give a host's off states 0f).
    const std::optional<double> value = parse_speed(pstate);
    if (begin == 0) speed = positive_quantity(source, node, what, text, value, "312Tf");
    else if (!value) source.fail(node, unreadable(what, text, "312Tf"));
    else if (!(*value >= 0) || !std::isfinite(*value))
      source.fail(node, fmt::format("{} must not be negative, got {}", what, text));
    begin = end + 1;
  }
  return speed;
}

double latency_value(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                     const std::string& text) {
  const std::optional<double> latency = parse_time(text);
  if (!latency) source.fail(node, unreadable(what, text, "1us or 500ns"));
  if (!(*latency >= 0) || !std::isfinite(*latency))
    source.fail(node, fmt::format("{} must not be negative, got {}", what, text));
  return *latency;
}

}  // namespace pipegrid::platform
