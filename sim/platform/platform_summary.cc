#include "sim/platform/platform_summary.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <ostream>

#include "sim/platform/link_classes.h"
#include "sim/platform/route_hops.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

// Names beyond this many are counted, not listed.
constexpr std::size_t kNamesShown = 8;

std::string some_names(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > kNamesShown) text += fmt::format(" and {} more", names.size() - kNamesShown);
  return text;
}

// "312Tf" when every GPU agrees; otherwise the most common value with its count, then each other
// value with the GPUs that have it.
template <typename Value>
std::string gpu_values(const PlatformFacts& facts, std::function<Value(const GpuHost&)> value_of,
                       std::function<std::string(const Value&)> show) {
  std::map<Value, std::vector<std::string>> gpus_of;
  std::vector<Value> order;  // first appearance, for a stable text
  for (const GpuHost& gpu : facts.gpus) {
    auto& names = gpus_of[value_of(gpu)];
    if (names.empty()) order.push_back(value_of(gpu));
    names.push_back(gpu.name);
  }
  if (order.size() == 1) return show(order.front());
  const Value common = *std::max_element(order.begin(), order.end(), [&](const Value& a, const Value& b) {
    return gpus_of[a].size() < gpus_of[b].size();
  });
  std::string text = fmt::format("{} on {} GPUs", show(common), gpus_of[common].size());
  for (const Value& value : order)
    if (value != common) text += fmt::format("; {} on {}", show(value), some_names(gpus_of[value]));
  return text;
}

std::string gpus_per_node(const PlatformFacts& facts) {
  std::map<int, int> per_node;
  for (const GpuHost& gpu : facts.gpus) ++per_node[gpu.node];
  const auto [fewest, most] = std::minmax_element(per_node.begin(), per_node.end(),
                                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  if (fewest->second == most->second) return fmt::format("{} per node", most->second);
  return fmt::format("{} to {} per node", fewest->second, most->second);
}

std::string config_text(const PlatformFacts& facts) {
  bool model_set = false;
  std::string props;
  for (const auto& [id, value] : facts.config) {
    if (id == "network/model") model_set = true;
    else props += fmt::format("{}{} {}", props.empty() ? "" : ", ", id, value);
  }
  if (!model_set)
    return fmt::format("{} (pipegrid's default, since the file's <config> sets no network/model: bandwidth and latency "
                       "factors 1.0, no cross-traffic; set network/model there to choose another){}",
                       facts.network_model, props.empty() ? "" : fmt::format(" ({})", props));
  return props.empty() ? facts.network_model : fmt::format("{} ({})", facts.network_model, props);
}

std::string sharing_note(const std::string& policy, double bandwidth) {
  if (policy == "SPLITDUPLEX")
    return fmt::format("SPLITDUPLEX: this direction only; the other has its own {}", format_bandwidth(bandwidth));
  if (policy == "FATPIPE") return "FATPIPE: every flow may use all of it, unshared";
  return "SHARED: both directions share it";
}

}  // namespace

// The time-varying profiles, by what they drive: what a perturbed platform changes.
static void describe_profiles(std::ostream& out, const PlatformFacts& facts) {
  for (const auto& [of, what] : {std::pair{ProfileOf::HostSpeed, "host speed"}, std::pair{ProfileOf::HostState, "host state"},
                                 std::pair{ProfileOf::LinkState, "link state"}}) {
    std::vector<std::string> names;
    for (const ResourceProfile& profile : facts.resource_profiles)
      if (profile.of == of) names.push_back(profile.resource);
    if (!names.empty()) out << fmt::format("{} profiles: {}\n", what, some_names(names));
  }
  if (!facts.profile_files.empty()) out << fmt::format("profile files: {}\n", facts.profile_files.size());
}

void describe_platform(std::ostream& out, const PlatformFacts& facts) {
  out << fmt::format("platform: {}\n", facts.path);
  out << fmt::format("GPUs: {} on {} node{}, {}\n", facts.gpus.size(), facts.nodes, facts.nodes == 1 ? "" : "s",
                     gpus_per_node(facts));
  out << "GPU speed: "
      << gpu_values<double>(facts, [](const GpuHost& g) { return g.speed; }, [](const double& s) { return format_speed(s); })
      << '\n';
  out << "GPU memory: "
      << gpu_values<std::int64_t>(facts, [](const GpuHost& g) { return g.memory; },
                                  [](const std::int64_t& m) {
                                    return fmt::format("{} bytes ({:.4g} GiB)", m, static_cast<double>(m) / (1 << 30));
                                  })
      << '\n';
  out << "GPU model: "
      << gpu_values<std::string>(facts, [](const GpuHost& g) { return g.model.empty() ? "(none)" : g.model; },
                                 [](const std::string& m) { return m; })
      << '\n';
  for (const std::string& inference : facts.inferences) out << "inferred: " << inference << '\n';
  if (!facts.other_hosts.empty()) out << fmt::format("other hosts: {}\n", some_names(facts.other_hosts));
  for (const ClusterFacts& c : facts.clusters)
    out << fmt::format("cluster {} (line {}): {}{}, {} hosts, links {} {} {}{}\n", c.id, c.line, c.topology,
                       c.topo_parameters.empty() ? "" : " " + c.topo_parameters, c.hosts, format_bandwidth(c.bandwidth),
                       format_time(c.latency), c.sharing_policy,
                       c.topology == "FLAT" ? "" : fmt::format(" (made by SimGrid's zone, not listed below)"));
  out << fmt::format("routers: {}\n", facts.routers.size());
  out << fmt::format("network model: {}\n", config_text(facts));
  out << fmt::format("routing: {}\n", facts.routing);
  out << fmt::format("links: {}, routes: {}\n", facts.links.size(), facts.routes.size());
  if (!facts.links.empty()) out << fmt::format("  {:<9} {:>6} {:>10} {:>8}  {}\n", "class", "links", "bandwidth", "latency", "sharing");
  for (const LinkClass& cls : link_classes(facts)) {
    out << fmt::format("  {:<9} {:>6} {:>10} {:>8}  {}\n", cls.name, cls.count, format_bandwidth(cls.typical.bandwidth),
                       format_time(cls.typical.latency), cls.typical.sharing_policy);
    for (std::size_t i = 0; i < cls.unusual.size(); ++i) {
      if (i == kNamesShown) {
        out << fmt::format("    and {} more that differ\n", cls.unusual.size() - kNamesShown);
        break;
      }
      const LinkFacts& link = *cls.unusual[i];
      out << fmt::format("    differs: {} {} {} {} (line {})\n", link.name, format_bandwidth(link.bandwidth),
                         format_time(link.latency), link.sharing_policy, link.line);
    }
  }
  describe_profiles(out, facts);
}

void describe_route(std::ostream& out, const PlatformFacts& facts, const SimRoute& route) {
  using Key = std::pair<std::string, std::string>;  // (link, direction)
  std::vector<LinkUse> uses;
  std::map<Key, const SimRouteLink*> sim_link_of;
  std::size_t width = 0;
  for (const SimRouteLink& link : route.links) {
    uses.push_back(link_use_of(facts, link.name));
    sim_link_of[{uses.back().link, uses.back().direction}] = &link;
    width = std::max(width, uses.back().link.size());
  }
  auto sim_link = [&](const LinkUse& use) { return *sim_link_of.at({use.link, use.direction}); };
  out << fmt::format("route {} -> {} as SimGrid computes it: {} links, latency {}\n", route.src, route.dst,
                     route.links.size(), format_time(route.latency));
  std::vector<LinkUse> in_order;  // as a byte crosses them, when the hops are known
  auto print_link = [&](const LinkUse& use) {
    in_order.push_back(use);
    const SimRouteLink& link = sim_link(use);
    out << fmt::format("    {:<{}}  {:<4} {:>9} {:>7}\n", use.link, width, use.direction == "NONE" ? "" : use.direction,
                       format_bandwidth(link.bandwidth), format_time(link.latency));
  };
  if (const auto hops = route_hops(facts, route.src, route.dst, uses)) {
    for (const RouteHop& hop : *hops) {
      out << fmt::format("  {} -> {}\n", hop.from, hop.to);
      for (const LinkUse& use : hop.links) print_link(use);
    }
  } else {
    out << "  links in SimGrid's order (they are no chain of the file's routes):\n";
    for (const LinkUse& use : uses) print_link(use);
  }
  if (in_order.empty()) return;
  auto name = [](const LinkUse& use) { return use.direction == "NONE" ? use.link : use.link + " " + use.direction; };
  double lowest = sim_link(in_order.front()).bandwidth;
  for (const LinkUse& use : in_order) lowest = std::min(lowest, sim_link(use).bandwidth);
  std::vector<std::string> narrowest;
  for (const LinkUse& use : in_order)
    if (sim_link(use).bandwidth == lowest) narrowest.push_back(name(use));
  const LinkUse& first = *std::find_if(in_order.begin(), in_order.end(),
                                       [&](const LinkUse& use) { return sim_link(use).bandwidth == lowest; });
  const LinkFacts* declared = facts.find_link(first.link);
  out << fmt::format("bottleneck: {} at {} ({})\n", narrowest.front(), format_bandwidth(lowest),
                     sharing_note(declared ? declared->sharing_policy : "SHARED", lowest));
  if (narrowest.size() > 1)
    out << fmt::format("  as narrow: {}\n",
                       some_names(std::vector<std::string>(narrowest.begin() + 1, narrowest.end())));
}

}  // namespace pipegrid::platform
