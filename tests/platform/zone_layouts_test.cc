// `platform gen --zones per-node` (a zone per node and per leaf group, joined by <zoneRoute>s) gives
// SimGrid the network of the flat file: between every two GPUs the same links, with the same
// bandwidths and latencies. Each layout is loaded by SimGrid in a child process of its own (SimGrid
// keeps one engine per process); the routes come back as text.
#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform_test_support.h"
#include "sim/platform/names.h"
#include "sim/platform/route_query.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::read_text;
using test_support::write_temp_file;

// Three nodes of one NIC, two per leaf group, the spine 2:1: group 0 (nodes 0, 1) has an uplink of
// 2 × 25 GB/s / 2 = 25 GB/s, group 1 (node 2) one of 12.5 GB/s.
ClusterOptions small_cluster(ZoneLayout zones) {
  ClusterOptions options;
  options.preset = "dgx-a100";
  options.nodes = 3;
  options.nodes_per_leaf = 2;
  options.nics_per_node = 1;
  options.oversubscription = 2;
  options.zones = zones;
  return options;
}

std::vector<std::pair<std::string, std::string>> every_pair_of_gpus() {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b)
      if (a != b) pairs.emplace_back(gpu_host_name(a / 8, a % 8), gpu_host_name(b / 8, b % 8));
  return pairs;
}

// The routes SimGrid computes on `platform`, from a child process.
std::vector<SimRoute> routes_in_child(const std::string& platform, const std::string& name) {
  const std::string out = test_support::temp_dir() + name + ".routes";
  const pid_t pid = fork();
  if (pid == 0) {
    std::string text;
    try {
      for (const SimRoute& route : simgrid_routes(platform, every_pair_of_gpus())) {
        text += fmt::format("{} {} {:a} {}", route.src, route.dst, route.latency, route.links.size());
        for (const SimRouteLink& link : route.links)
          text += fmt::format(" {} {:a} {:a}", link.name, link.bandwidth, link.latency);
        text += '\n';
      }
    } catch (...) {
      _exit(1);
    }
    std::ofstream(out) << text;
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << name;
  std::vector<SimRoute> routes;
  std::istringstream lines(read_text(out));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    SimRoute route;
    std::string latency;
    std::size_t count = 0;
    in >> route.src >> route.dst >> latency >> count;
    route.latency = std::strtod(latency.c_str(), nullptr);
    for (std::size_t i = 0; i < count; ++i) {
      std::string link, bandwidth, link_latency;
      in >> link >> bandwidth >> link_latency;
      route.links.push_back({link, std::strtod(bandwidth.c_str(), nullptr), std::strtod(link_latency.c_str(), nullptr)});
    }
    routes.push_back(std::move(route));
  }
  return routes;
}

std::vector<std::string> described(std::vector<SimRouteLink> links) {
  std::vector<std::string> text;
  for (const SimRouteLink& link : links) text.push_back(fmt::format("{} {} {}", link.name, link.bandwidth, link.latency));
  return text;
}

TEST(ZoneLayouts, PerNodeZonesGiveEveryPairOfGpusTheFlatFilesLinks) {
  const std::string flat = write_temp_file("flat.xml", platform_xml(make_cluster_spec(small_cluster(ZoneLayout::Flat))));
  const std::string zoned = write_temp_file("zoned.xml", platform_xml(make_cluster_spec(small_cluster(ZoneLayout::PerNode))));
  ASSERT_NE(read_text(zoned).find("<zoneRoute"), std::string::npos);
  const std::vector<SimRoute> a = routes_in_child(flat, "flat"), b = routes_in_child(zoned, "zoned");
  ASSERT_EQ(a.size(), 24u * 23u);
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].src, b[i].src);
    ASSERT_EQ(a[i].dst, b[i].dst);
    // SimGrid 3.32's Dijkstra lists each hop's links reversed (route_hops.h); the zones list them in
    // the order a byte crosses them: the same links, compared as sorted lists.
    std::vector<std::string> flat_links = described(a[i].links), zoned_links = described(b[i].links);
    std::sort(flat_links.begin(), flat_links.end());
    std::sort(zoned_links.begin(), zoned_links.end());
    EXPECT_EQ(flat_links, zoned_links) << a[i].src << " -> " << a[i].dst;
    EXPECT_NEAR(a[i].latency, b[i].latency, 1e-18) << a[i].src << " -> " << a[i].dst;  // summed in another order
  }
}

TEST(ZoneLayouts, PerNodeZonesListLinksInTheOrderAByteCrossesThem) {
  const std::string zoned = write_temp_file("zoned.xml", platform_xml(make_cluster_spec(small_cluster(ZoneLayout::PerNode))));
  const SimRoute route = simgrid_routes(zoned, {{"node0-gpu0", "node2-gpu1"}}).front();
  // Node 0 (group 0) to node 2 (group 1): GPU PCIe, NIC PCIe, InfiniBand up to leaf 0, its uplink to
  // the spine (25 GB/s), leaf 1's uplink down (12.5 GB/s), then node 2's side in reverse.
  const std::vector<SimRouteLink> expected = {
      {"node0-gpu0-pcie_UP", 32e9, 0.25e-6},  {"node0-nic0-pcie_UP", 32e9, 0.25e-6},
      {"node0-nic0-ib_UP", 25e9, 1e-6},       {"leaf0-rail0-up_UP", 25e9, 0},
      {"leaf1-rail0-up_DOWN", 12.5e9, 0},     {"node2-nic0-ib_DOWN", 25e9, 1e-6},
      {"node2-nic0-pcie_DOWN", 32e9, 0.25e-6}, {"node2-gpu1-pcie_DOWN", 32e9, 0.25e-6}};
  ASSERT_EQ(route.links.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(route.links[i].name, expected[i].name) << i;
    EXPECT_DOUBLE_EQ(route.links[i].bandwidth, expected[i].bandwidth) << expected[i].name;
    EXPECT_DOUBLE_EQ(route.links[i].latency, expected[i].latency) << expected[i].name;
  }
  EXPECT_NEAR(route.latency, 4 * 0.25e-6 + 2 * 1e-6, 1e-18);
}

TEST(ZoneLayouts, PerNodeZonesNeedOneNicPerNode) {
  ClusterOptions options = small_cluster(ZoneLayout::PerNode);
  options.nics_per_node.reset();  // dgx-a100: 8 rails
  EXPECT_EQ(error_of([&] { make_cluster_spec(options); }),
            "--zones per-node: needs --nics-per-node 1 (this cluster has 8): SimGrid routes between two zones "
            "through one gateway, and a rail-optimised node sends each GPU's traffic through its own NIC");
  // The layout is part of the command that makes the file.
  EXPECT_NE(platform_xml(make_cluster_spec(small_cluster(ZoneLayout::PerNode)))
                .find("pipegrid platform gen --preset dgx-a100 --nodes 3 --nics-per-node 1 --oversubscription 2 "
                      "--nodes-per-leaf 2 --zones per-node"),
            std::string::npos);
}

}  // namespace
}  // namespace pipegrid::platform
