// A route as SimGrid 3.32 lists it, told back hop by hop. SimGrid's order, worked out from its
// source (DijkstraZone::get_local_route walks from the destination back and insert_link_latency
// prepends each hop's links reversed) and seen in simgrid_routes_test: hops in order, each hop's
// links reversed.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/route_hops.h"

namespace pipegrid::platform {
namespace {

using test_support::generated_xml;
using test_support::write_temp_file;

class RouteHops : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { facts_ = read_platform(write_temp_file("hops.xml", generated_xml("dgx-a100", 2))); }
  static PlatformFacts facts_;
};
PlatformFacts RouteHops::facts_;

std::vector<LinkUse> uses(const PlatformFacts& facts, const std::vector<std::string>& simgrid_names) {
  std::vector<LinkUse> result;
  for (const std::string& name : simgrid_names) result.push_back(link_use_of(facts, name));
  return result;
}

TEST_F(RouteHops, SimGridNamesOfSplitDuplexLinks) {
  EXPECT_EQ(link_use_of(facts_, "node0-nic0-ib_UP"), (LinkUse{"node0-nic0-ib", "UP"}));
  EXPECT_EQ(link_use_of(facts_, "node0-nic0-ib_DOWN"), (LinkUse{"node0-nic0-ib", "DOWN"}));
  EXPECT_EQ(link_use_of(facts_, "node0-nvswitch_DOWN"), (LinkUse{"node0-nvswitch", "DOWN"}));
  EXPECT_EQ(link_use_of(facts_, "leaf0-rail0-up_UP"), (LinkUse{"leaf0-rail0-up", "UP"}));
  EXPECT_EQ(link_use_of(facts_, "node0-gpu0"), (LinkUse{"node0-gpu0", "NONE"}));  // not SimGrid's name of a link
}

TEST_F(RouteHops, CrossRailBetweenNodes) {
  const auto hops = route_hops(facts_, "node0-gpu0", "node1-gpu1",
                               uses(facts_, {"node0-nic0-ib_UP", "node0-nic0-pcie_UP", "node0-gpu0-pcie_UP",
                                             "leaf0-rail0-up_UP", "leaf0-rail1-up_DOWN", "node1-gpu1-pcie_DOWN",
                                             "node1-nic1-pcie_DOWN", "node1-nic1-ib_DOWN"}));
  ASSERT_TRUE(hops);
  ASSERT_EQ(hops->size(), 4u);
  EXPECT_EQ((*hops)[0].from, "node0-gpu0");
  EXPECT_EQ((*hops)[0].to, "leaf0-rail0");
  EXPECT_EQ((*hops)[0].links, (std::vector<LinkUse>{{"node0-gpu0-pcie", "UP"}, {"node0-nic0-pcie", "UP"},
                                                    {"node0-nic0-ib", "UP"}}));
  EXPECT_EQ((*hops)[1].to, "spine");
  EXPECT_EQ((*hops)[2].to, "leaf0-rail1");
  EXPECT_EQ((*hops)[3].to, "node1-gpu1");
  EXPECT_EQ((*hops)[3].links, (std::vector<LinkUse>{{"node1-nic1-ib", "DOWN"}, {"node1-nic1-pcie", "DOWN"},
                                                    {"node1-gpu1-pcie", "DOWN"}}));
}

TEST_F(RouteHops, InsideANodeThroughTheSwitch) {
  // The second hop is the way back of the declared node0-gpu2 -> node0-nvswitch.
  const auto hops = route_hops(facts_, "node0-gpu6", "node0-gpu2",
                               uses(facts_, {"node0-nvswitch_UP", "node0-gpu6-nvlink_UP", "node0-gpu2-nvlink_DOWN",
                                             "node0-nvswitch_DOWN"}));
  ASSERT_TRUE(hops);
  ASSERT_EQ(hops->size(), 2u);
  EXPECT_EQ((*hops)[0].links, (std::vector<LinkUse>{{"node0-gpu6-nvlink", "UP"}, {"node0-nvswitch", "UP"}}));
  EXPECT_EQ((*hops)[1].from, "node0-nvswitch");
  EXPECT_EQ((*hops)[1].links, (std::vector<LinkUse>{{"node0-nvswitch", "DOWN"}, {"node0-gpu2-nvlink", "DOWN"}}));
}

TEST_F(RouteHops, HopsInDeclaredOrderAreAcceptedToo) {
  const auto hops = route_hops(facts_, "node0-gpu6", "node0-gpu2",
                               uses(facts_, {"node0-gpu6-nvlink_UP", "node0-nvswitch_UP", "node0-nvswitch_DOWN",
                                             "node0-gpu2-nvlink_DOWN"}));
  ASSERT_TRUE(hops);
  EXPECT_EQ((*hops)[0].links.front(), (LinkUse{"node0-gpu6-nvlink", "UP"}));
}

TEST_F(RouteHops, LinksThatAreNoChainOfRoutes) {
  EXPECT_FALSE(route_hops(facts_, "node0-gpu0", "node1-gpu0", uses(facts_, {"node0-nic0-ib_UP", "node1-nic0-ib_DOWN"})));
  EXPECT_FALSE(route_hops(facts_, "node0-gpu0", "node1-gpu0",
                          uses(facts_, {"node0-nic0-ib_UP", "node0-nic0-pcie_UP", "node0-gpu0-pcie_UP"})));  // ends at the leaf
}

}  // namespace
}  // namespace pipegrid::platform
