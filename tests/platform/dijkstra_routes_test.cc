// pipegrid's copy of SimGrid 3.32's Dijkstra (sim/platform/dijkstra_routes.h) against SimGrid itself:
// on a platform of one Dijkstra zone, the route between every two GPUs — its links, in SimGrid's
// order, and its latency, summed as SimGrid sums it — is the one Host::route_to gives, exactly.
// One platform per test: SimGrid allows one engine per process.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/platform/dijkstra_routes.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/route_query.h"

namespace pipegrid::platform {
namespace {

void expect_simgrids_routes(const std::string& file) {
  const PlatformFacts facts = read_platform(file);
  const auto search = DijkstraRoutes::of(facts);
  ASSERT_NE(search, nullptr) << file;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const GpuHost& a : facts.gpus)
    for (const GpuHost& b : facts.gpus)
      if (a.name != b.name) pairs.emplace_back(a.name, b.name);
  const std::vector<SimRoute> routes = simgrid_routes(file, pairs);
  ASSERT_EQ(routes.size(), pairs.size());
  for (const SimRoute& route : routes) {
    const auto hops = search->hops_back(route.src, route.dst);
    ASSERT_TRUE(hops.has_value()) << route.src << " -> " << route.dst;
    std::vector<std::string> simgrid;
    for (const SimRouteLink& link : route.links) simgrid.push_back(link.name);
    EXPECT_EQ(DijkstraRoutes::links_of(*hops), simgrid) << route.src << " -> " << route.dst;
    double latency = 0;
    for (const DijkstraRoutes::Hop hop : *hops)
      for (const std::string& name : *hop)
        for (const SimRouteLink& link : route.links)
          if (link.name == name) {
            latency += link.latency;
            break;
          }
    EXPECT_EQ(latency, route.latency) << route.src << " -> " << route.dst;
  }
}

TEST(DijkstraRoutes, EveryRouteOfAThreeNodeDgxIsSimGrids) {
  expect_simgrids_routes(PIPEGRID_TEST_DATA "/platforms/dgx-a100-3node.xml");
}

TEST(DijkstraRoutes, EveryRouteOfAnEightNodeH800ClusterIsSimGrids) {
  // 64 GPUs, 8 rails through leaf switches: 4032 routes.
  expect_simgrids_routes(PIPEGRID_TEST_DATA "/platforms/h800-8node.xml");
}

TEST(DijkstraRoutes, EveryRouteOfTwoNodesOnOneNicIsSimGrids) {
  // Equal-length ways through the NVSwitch or the node's one NIC: ties SimGrid breaks by node order.
  expect_simgrids_routes(PIPEGRID_TEST_DATA "/platforms/rails-2node-1nic.xml");
}

TEST(DijkstraRoutes, EveryRouteOfAStarIsSimGrids) {
  expect_simgrids_routes(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml");
}

TEST(DijkstraRoutes, OnlyForOneZoneOfSymmetricalRoutesRoutedDijkstra) {
  const PlatformFacts facts = read_platform(PIPEGRID_TEST_DATA "/platforms/dgx-a100-3node.xml");
  ASSERT_NE(DijkstraRoutes::of(facts), nullptr);
  PlatformFacts full = facts;
  full.zones.front().routing = "Full";
  EXPECT_EQ(DijkstraRoutes::of(full), nullptr);
  PlatformFacts one_way = facts;
  one_way.routes.front().symmetrical = false;
  EXPECT_EQ(DijkstraRoutes::of(one_way), nullptr);
  PlatformFacts zoned = facts;
  zoned.routes_declared = false;
  EXPECT_EQ(DijkstraRoutes::of(zoned), nullptr);
}

}  // namespace
}  // namespace pipegrid::platform
