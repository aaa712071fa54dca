// The routes SimGrid computes on generated platforms are the physical ones (platform_xml.h): NVLink
// inside a node, the leaf switch alone between nodes on one rail, the spine otherwise. Compared as
// sets, since SimGrid's order within a route is its own (route_hops_test).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <set>

#include "platform_test_support.h"
#include "sim/platform/route_query.h"

namespace pipegrid::platform {
namespace {

using test_support::generated_xml;
using test_support::kPlatforms;
using test_support::write_temp_file;
using Links = std::multiset<std::string>;

Links links_of(const SimRoute& route) {
  Links links;
  for (const SimRouteLink& link : route.links) links.insert(link.name);
  return links;
}

SimRoute route_on_two_nodes(const std::string& src, const std::string& dst) {
  return simgrid_routes(kPlatforms + "/dgx-a100-2node.xml", {{src, dst}}).front();
}

TEST(SimGridRoutes, InsideANodeOverNvlink) {
  const SimRoute route = route_on_two_nodes("node0-gpu0", "node0-gpu1");
  EXPECT_EQ(links_of(route), (Links{"node0-gpu0-nvlink_UP", "node0-nvswitch_UP", "node0-nvswitch_DOWN",
                                    "node0-gpu1-nvlink_DOWN"}));
  EXPECT_DOUBLE_EQ(route.latency, 0.5e-6 + 0 + 0 + 0.5e-6);
}

TEST(SimGridRoutes, SameRailStaysUnderTheLeaf) {
  const SimRoute route = route_on_two_nodes("node0-gpu3", "node1-gpu3");
  EXPECT_EQ(links_of(route), (Links{"node0-gpu3-pcie_UP", "node0-nic3-pcie_UP", "node0-nic3-ib_UP",
                                    "node1-nic3-ib_DOWN", "node1-nic3-pcie_DOWN", "node1-gpu3-pcie_DOWN"}));
  EXPECT_DOUBLE_EQ(route.latency, 0.25e-6 + 0.25e-6 + 1e-6 + 1e-6 + 0.25e-6 + 0.25e-6);
}

TEST(SimGridRoutes, CrossRailGoesThroughTheSpine) {
  const SimRoute route = route_on_two_nodes("node0-gpu0", "node1-gpu1");
  EXPECT_EQ(links_of(route), (Links{"node0-gpu0-pcie_UP", "node0-nic0-pcie_UP", "node0-nic0-ib_UP",
                                    "leaf0-rail0-up_UP", "leaf0-rail1-up_DOWN", "node1-nic1-ib_DOWN",
                                    "node1-nic1-pcie_DOWN", "node1-gpu1-pcie_DOWN"}));
  // The spine hop adds no latency (presets.h): every route between nodes takes 3 µs.
  EXPECT_DOUBLE_EQ(route.latency, 3e-6);
}

TEST(SimGridRoutes, OtherLeafGroupsThroughTheSpine) {
  ClusterOptions options;
  options.nodes_per_leaf = 1;
  const std::string path = write_temp_file("leaf-per-node.xml", generated_xml("dgx-a100", 2, options));
  const SimRoute route = simgrid_routes(path, {{"node0-gpu4", "node1-gpu4"}}).front();
  EXPECT_EQ(links_of(route), (Links{"node0-gpu4-pcie_UP", "node0-nic4-pcie_UP", "node0-nic4-ib_UP",
                                    "leaf0-rail4-up_UP", "leaf1-rail4-up_DOWN", "node1-nic4-ib_DOWN",
                                    "node1-nic4-pcie_DOWN", "node1-gpu4-pcie_DOWN"}));
}

TEST(SimGridRoutes, GpusSharingANicStillTalkOverNvlink) {
  // Four NICs: GPUs 2 and 3 share nic1, and the path through it costs 6 links against NVLink's 4.
  ClusterOptions options;
  options.nics_per_node = 4;
  const std::string path = write_temp_file("four-nics.xml", generated_xml("dgx-a100", 2, options));
  const auto routes = simgrid_routes(path, {{"node0-gpu2", "node0-gpu3"}, {"node0-gpu3", "node1-gpu2"}});
  EXPECT_EQ(links_of(routes[0]), (Links{"node0-gpu2-nvlink_UP", "node0-nvswitch_UP", "node0-nvswitch_DOWN",
                                        "node0-gpu3-nvlink_DOWN"}));
  EXPECT_EQ(links_of(routes[1]), (Links{"node0-gpu3-pcie_UP", "node0-nic1-pcie_UP", "node0-nic1-ib_UP",
                                        "node1-nic1-ib_DOWN", "node1-nic1-pcie_DOWN", "node1-gpu2-pcie_DOWN"}));
}

TEST(SimGridRoutes, EveryGpuPairOfTheTwoNodePlatform) {
  // No route passes through a third GPU: 4 links inside a node, 6 on one rail, 8 across rails.
  auto name = [](int gpu) { return fmt::format("node{}-gpu{}", gpu / 8, gpu % 8); };
  std::vector<std::pair<int, int>> gpus;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b)
      if (a != b) {
        gpus.emplace_back(a, b);
        pairs.emplace_back(name(a), name(b));
      }
  const auto routes = simgrid_routes(kPlatforms + "/dgx-a100-2node.xml", pairs);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = gpus[i];
    const std::size_t expected = a / 8 == b / 8 ? 4 : a % 8 == b % 8 ? 6 : 8;
    EXPECT_EQ(routes[i].links.size(), expected) << pairs[i].first << " -> " << pairs[i].second;
  }
}

}  // namespace
}  // namespace pipegrid::platform
