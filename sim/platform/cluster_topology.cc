#include "sim/platform/cluster_topology.h"

#include <charconv>
#include <fmt/format.h>

namespace pipegrid::platform {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t begin = 0;;) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

std::optional<long long> integer(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Positive counts, `expected` of them (0: any number but at least one).
std::optional<std::vector<long long>> counts(std::string_view text, std::size_t expected) {
  std::vector<long long> values;
  for (std::string_view part : split(text, ',')) {
    const auto value = integer(part);
    if (!value || *value < 1 || *value > 1'000'000) return std::nullopt;
    values.push_back(*value);
  }
  if (expected != 0 && values.size() != expected) return std::nullopt;
  return values;
}

constexpr long long kMaxHosts = 10'000'000;

std::optional<long long> product(const std::vector<long long>& values) {
  long long hosts = 1;
  for (long long value : values) {
    hosts *= value;
    if (hosts > kMaxHosts) return std::nullopt;
  }
  return hosts;
}

}  // namespace

std::optional<std::vector<int>> parse_radical(std::string_view text) {
  std::vector<int> radicals;
  for (std::string_view group : split(text, ',')) {
    const std::vector<std::string_view> ends = split(group, '-');
    if (ends.size() > 2) return std::nullopt;
    const auto start = integer(ends.front()), end = integer(ends.back());
    if (!start || !end || *start < 0 || *end > 100'000'000) return std::nullopt;
    for (long long i = *start; i <= *end; ++i) {
      if (radicals.size() >= static_cast<std::size_t>(kMaxHosts)) return std::nullopt;
      radicals.push_back(static_cast<int>(i));
    }
  }
  return radicals;
}

std::optional<long long> topology_hosts(std::string_view topology, std::string_view parameters, std::string& rule) {
  if (topology == "FAT_TREE") {
    rule = "a FAT_TREE's topo_parameters are \"LEVELS;DOWN,…;UP,…;PORTS,…\", LEVELS positive counts in each list";
    const std::vector<std::string_view> parts = split(parameters, ';');
    if (parts.size() != 4) return std::nullopt;
    const auto levels = integer(parts[0]);
    if (!levels || *levels < 1 || *levels > 64) return std::nullopt;
    const auto down = counts(parts[1], *levels), up = counts(parts[2], *levels), ports = counts(parts[3], *levels);
    if (!down || !up || !ports) return std::nullopt;
    return product(*down);
  }
  if (topology == "TORUS") {
    rule = "a TORUS's topo_parameters are its dimensions \"X,Y,Z,…\", positive counts";
    const auto dimensions = counts(parameters, 0);
    return dimensions ? product(*dimensions) : std::nullopt;
  }
  if (topology == "DRAGONFLY") {
    rule = "a DRAGONFLY's topo_parameters are \"GROUPS,LINKS;CHASSIS,LINKS;ROUTERS,LINKS;HOSTS\", positive counts";
    const std::vector<std::string_view> parts = split(parameters, ';');
    if (parts.size() != 4) return std::nullopt;
    const auto groups = counts(parts[0], 2), chassis = counts(parts[1], 2), routers = counts(parts[2], 2),
               hosts = counts(parts[3], 1);
    if (!groups || !chassis || !routers || !hosts) return std::nullopt;
    return product({(*groups)[0], (*chassis)[0], (*routers)[0], (*hosts)[0]});
  }
  rule = fmt::format("topology must be FLAT, TORUS, FAT_TREE or DRAGONFLY, got {}", topology);
  return std::nullopt;
}

}  // namespace pipegrid::platform
