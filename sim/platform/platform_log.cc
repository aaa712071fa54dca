#include "sim/platform/platform_log.h"

#include <fmt/format.h>
#include <string_view>

#include "common/log.h"

namespace pipegrid::platform {

void log_platform(const PlatformFacts& facts) {
  spdlog::logger& logger = log::platform();
  if (!logger.should_log(spdlog::level::debug)) return;
  const auto count = [](std::size_t n, std::string_view what) {
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  logger.debug(
      "platform {}: {} ({} GPUs on {}, {} other), {}, {} declared, {}, {} (the outermost routed {}), {}; "
      "network model {}{}",
      facts.path, count(facts.gpus.size() + facts.other_hosts.size(), "host"), facts.gpus.size(),
      count(static_cast<std::size_t>(facts.nodes), "node"), facts.other_hosts.size(),
      count(facts.routers.size(), "router"), count(facts.links.size(), "link"), count(facts.routes.size(), "route"),
      count(facts.zones.size(), "zone"), facts.routing, count(facts.clusters.size(), "cluster"), facts.network_model,
      facts.network_model_defaulted ? " (pipegrid's default)" : "");
  if (!logger.should_log(spdlog::level::trace)) return;
  for (const GpuHost& gpu : facts.gpus)
    logger.trace("host {}: GPU {} of node {}, {:g} flop/s, {} bytes of memory{} (line {})", gpu.name, gpu.gpu, gpu.node,
                 gpu.speed, gpu.memory, gpu.model.empty() ? "" : ", model " + gpu.model, gpu.line);
  for (const std::string& host : facts.other_hosts) logger.trace("host {}: not a GPU", host);
  for (const LinkFacts& link : facts.links)
    logger.trace("link {}: {:g} bytes/s, latency {:g} s, {} (line {})", link.name, link.bandwidth, link.latency,
                 link.sharing_policy, link.line);
  for (const ClusterFacts& cluster : facts.clusters)
    logger.trace("cluster {}: {} hosts, {} topology, links of {:g} bytes/s and {:g} s made by SimGrid (line {})",
                 cluster.id, cluster.hosts, cluster.topology, cluster.bandwidth, cluster.latency, cluster.line);
}

}  // namespace pipegrid::platform
