// Standard SimGrid XML as read_platform reads it: a <cluster>'s hosts and links named as SimGrid 3.32
// names them (src/surf/sg_platf.cpp, sg_platf_new_cluster_flat), GPUs and nodes inferred where the
// file does not say, memory in SimGrid's size units, and each mistake one line with its line number.
#include <gtest/gtest.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::kPlatforms;
using test_support::replace_once;
using test_support::write_temp_file;

std::string platform(const std::string& zone_body, const std::string& routing = "Full") {
  return "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"world\" routing=\"" + routing + "\">\n" +
         zone_body + "</zone>\n</platform>\n";
}

// Radical 0-1,8-9: hosts gpu0.x, gpu1.x, gpu8.x, gpu9.x; gpus_per_node 2 groups them (0, 1) and (8, 9).
// Per radical R a SPLITDUPLEX link rack_link_R, then rack_backbone (bb_bw set) and the router
// gpu rack_router .x (PREFIX ID _router SUFFIX).
const std::string kRack = platform(
    "<cluster id=\"rack\" prefix=\"gpu\" suffix=\".x\" radical=\"0-1,8-9\" speed=\"312Tf\" bw=\"25GBps\" lat=\"1us\"\n"
    "         bb_bw=\"100GBps\" bb_lat=\"2us\">\n"
    "  <prop id=\"role\" value=\"gpu\"/>\n"
    "  <prop id=\"memory\" value=\"80GiB\"/>\n"
    "  <prop id=\"gpus_per_node\" value=\"2\"/>\n"
    "</cluster>\n");

TEST(StandardXml, AFlatClusterIsExpandedAsSimGridNamesIt) {
  const PlatformFacts facts = read_platform(write_temp_file("rack.xml", kRack));
  ASSERT_EQ(facts.gpus.size(), 4u);
  const std::pair<std::string, std::pair<int, int>> expected[] = {
      {"gpu0.x", {0, 0}}, {"gpu1.x", {0, 1}}, {"gpu8.x", {1, 0}}, {"gpu9.x", {1, 1}}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(facts.gpus[i].name, expected[i].first);
    EXPECT_EQ(std::pair(facts.gpus[i].node, facts.gpus[i].gpu), expected[i].second) << expected[i].first;
    EXPECT_EQ(facts.gpus[i].memory, 80LL << 30);
    EXPECT_EQ(facts.gpus[i].speed, 312e12);
  }
  EXPECT_EQ(facts.nodes, 2);
  std::vector<std::string> links;
  for (const LinkFacts& link : facts.links) links.push_back(link.name + " " + link.sharing_policy);
  EXPECT_EQ(links, (std::vector<std::string>{"rack_link_0 SPLITDUPLEX", "rack_link_1 SPLITDUPLEX",
                                             "rack_link_8 SPLITDUPLEX", "rack_link_9 SPLITDUPLEX",
                                             "rack_backbone SHARED"}));
  EXPECT_EQ(facts.find_link("rack_backbone")->bandwidth, 100e9);
  EXPECT_EQ(facts.routers, std::vector<std::string>{"gpurack_router.x"});
  EXPECT_FALSE(facts.routes_declared);  // a cluster's routes are SimGrid's
  EXPECT_EQ(facts.inferences, std::vector<std::string>{
                                  "nodes: cluster rack's 4 GPUs are grouped 2 consecutive hosts per node (gpus_per_node 2)"});
}

// 80GB = 8e10 and 1e10 bytes as written; 1Gb = 1e9 bits = 1.25e8 bytes (SimGrid: 8 b = 1 B).
TEST(StandardXml, MemoryTakesSimGridSizeUnits) {
  for (const auto& [text, bytes] : {std::pair{"80GB", 80'000'000'000LL}, std::pair{"1e10", 10'000'000'000LL},
                                    std::pair{"2KiB", 2048LL}, std::pair{"1Gb", 125'000'000LL}}) {
    const std::string xml = replace_once(kRack, "80GiB", text);
    EXPECT_EQ(read_platform(write_temp_file("memory.xml", xml)).gpus.front().memory, bytes) << text;
  }
}

// No host says role=gpu: every host is a GPU, a <host> one node of its own, memory the default.
TEST(StandardXml, WithoutRolesEveryHostIsAGpu) {
  const PlatformFacts facts = read_platform(write_temp_file(
      "plain.xml", platform("<host id=\"h0\" speed=\"1Gf\"/>\n<host id=\"h1\" speed=\"1Gf\"/>\n"
                            "<link id=\"l\" bandwidth=\"1GBps\"/>\n"
                            "<route src=\"h0\" dst=\"h1\"><link_ctn id=\"l\"/></route>\n")));
  ASSERT_EQ(facts.gpus.size(), 2u);
  EXPECT_EQ(facts.gpus[1].name, "h1");
  EXPECT_EQ(facts.gpus[1].node, 1);
  EXPECT_EQ(facts.gpus[1].memory, 80LL << 30);
  EXPECT_TRUE(facts.routes_declared);  // one zone of declared routes: RouteReach still answers
  EXPECT_EQ(facts.inferences.size(), 3u);
  EXPECT_EQ(facts.network_model, "CM02");
  EXPECT_TRUE(facts.network_model_defaulted);
}

struct BadFile {
  std::string body;
  std::string error;  // after "FILE:"
};

TEST(StandardXml, EachMistakeIsOneLineWithItsLine) {
  const BadFile cases[] = {
      {"<host id=\"g\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/></host>\n",
       "4: host g: a GPU host (role gpu) needs properties node, gpu and memory"},
      {"<host id=\"g\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/></host>\n",
       "4: host g: a GPU host (role gpu) needs properties gpu and memory"},
      {"<host id=\"g\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"0\"/>\n"
       "<prop id=\"gpu\" value=\"0\"/><prop id=\"memory\" value=\"80 GiB\"/></host>\n",
       "5: host g: property memory must be a positive size in SimGrid's units such as 80GiB, 80GB or 1e10 (bytes), "
       "got 80 GiB"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-a\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n",
       "4: cluster c: radical must be integers and ranges such as 0-15 or 0-3,8-11, got 0-a"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
       " topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2\"/>\n",
       "4: cluster c: topo_parameters 2;4,4;1,2: a FAT_TREE's topo_parameters are \"LEVELS;DOWN,…;UP,…;PORTS,…\", "
       "LEVELS positive counts in each list"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
       " topology=\"TORUS\" topo_parameters=\"2,3\"/>\n",
       "4: cluster c: its TORUS topology 2,3 makes 6 hosts, but radical 0-3 names only 4"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" "
       "topology=\"RING\"/>\n",
       "4: cluster c: topology must be one of FLAT, TORUS, FAT_TREE, DRAGONFLY, got RING"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n"
       "<host id=\"n1\" speed=\"1Gf\"/>\n",
       "5: duplicate id n1, first declared at line 4"},
      {"<zone id=\"a\" routing=\"Full\"><host id=\"x\" speed=\"1Gf\"/></zone>\n"
       "<zoneRoute src=\"a\" dst=\"b\" gw_src=\"x\" gw_dst=\"x\"/>\n",
       "5: zoneRoute a -> b: no zone b in zone world (a zone route joins two zones of the zone that declares it)"},
      {"<zone id=\"a\" routing=\"Full\"><host id=\"x\" speed=\"1Gf\"/></zone>\n"
       "<zone id=\"b\" routing=\"Full\"><host id=\"y\" speed=\"1Gf\"/></zone>\n"
       "<ASroute src=\"a\" dst=\"b\" gw_src=\"y\" gw_dst=\"y\"/>\n",
       "6: ASroute a -> b: gw_src y is in zone b, not in zone a"},
      {"<zone id=\"a\" routing=\"Vivaldi\"><peer id=\"p\" speed=\"1Gf\" bw_in=\"1GBps\" bw_out=\"1GBps\"/></zone>\n",
       "4: <peer> is not read by pipegrid: declare the Vivaldi zone's hosts with <host coordinates> and their links"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" core=\"4\"/>\n",
       "4: cluster c: core 4: pipegrid runs one rank per host, on SimGrid's CPU model with cpu/optim TI, which takes "
       "single-core hosts only; leave core at 1"},
      {"<link id=\"ap\" bandwidth=\"54Mbps\" sharing_policy=\"WIFI\"/>\n",
       "4: link ap: sharing_policy WIFI: pipegrid does not simulate Wi-Fi links (their rate depends on each station's)"},
      {"<zone id=\"n\" routing=\"None\"><host id=\"x\" speed=\"1Gf\"/><host id=\"y\" speed=\"1Gf\"/>\n"
       "<route src=\"x\" dst=\"y\"/></zone>\n",
       "5: route x -> y: zone n is routed None, which has no routes"},
      {"<zone id=\"s\" routing=\"Cluster\"><host id=\"x\" speed=\"1Gf\"/>\n"
       "<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
       "<host_link id=\"x\" up=\"l\" down=\"l_DOWN\"/></zone>\n",
       "6: host_link x: up: link l is SPLITDUPLEX: name one direction, l_UP or l_DOWN"},
      {"<backbone id=\"bb\" bandwidth=\"1GBps\" latency=\"1us\"/>\n",
       "4: <backbone> belongs in a zone routed Cluster, not Full"},
      // A latency without its bandwidth (found by tests/fuzz/platform_xml).
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" "
       "loopback_lat=\"5us\"/>\n",
       "4: cluster c: loopback_lat without loopback_bw: SimGrid would make loopback links of bandwidth 0"},
      {"<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" "
       "bb_lat=\"5us\"/>\n",
       "4: cluster c: bb_lat without bb_bw: SimGrid would make a backbone of bandwidth 0"},
  };
  for (const BadFile& c : cases) {
    const std::string path = write_temp_file("bad.xml", platform(c.body));
    EXPECT_EQ(error_of([&] { read_platform(path); }), path + ":" + c.error) << c.body;
  }
}

// What SimGrid's own small_platform.xml and energy examples hold: a host's loopback route (its own
// way back), pstates of 0f after the first, a Cluster zone's host_link naming a direction.
TEST(StandardXml, SimGridExampleIdiomsAreRead) {
  const PlatformFacts facts = read_platform(write_temp_file(
      "idioms.xml", platform("<zone id=\"s\" routing=\"Cluster\">\n"
                             "<host id=\"x\" speed=\"1Gf,0.5Gf,0f\"/><host id=\"y\" speed=\"1Gf\"/>\n"
                             "<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                             "<link id=\"m\" bandwidth=\"1GBps\"/>\n"
                             "<host_link id=\"x\" up=\"l_UP\" down=\"l_DOWN\"/>\n"
                             "<host_link id=\"y\" up=\"m\" down=\"m\"/>\n"
                             "<backbone id=\"bb\" bandwidth=\"10GBps\" latency=\"1us\"/>\n"
                             "</zone>\n"
                             "<zone id=\"f\" routing=\"Full\"><host id=\"z\" speed=\"1Gf\"/>\n"
                             "<link id=\"lo\" bandwidth=\"1GBps\"/>\n"
                             "<route src=\"z\" dst=\"z\"><link_ctn id=\"lo\"/></route></zone>\n"
                             "<zoneRoute src=\"s\" dst=\"f\" gw_src=\"x\" gw_dst=\"z\"><link_ctn id=\"m\"/></zoneRoute>\n")));
  EXPECT_EQ(facts.gpus.size(), 3u);
  EXPECT_EQ(facts.find_gpu("x")->speed, 1e9);  // pstate 0
  EXPECT_EQ(facts.find_link("bb")->bandwidth, 10e9);
  EXPECT_FALSE(facts.routes_declared);
}

// Every routing SimGrid 3.32 accepts is read (sg_platf_new_Zone_begin's list), compared without case.
TEST(StandardXml, EveryRoutingOfSimGridIsRead) {
  for (const char* routing : {"Full", "floyd", "Dijkstra", "DijkstraCache", "Cluster", "None", "Vivaldi", "Wifi"}) {
    const std::string path = write_temp_file(
        "routing.xml", platform(std::string("<zone id=\"z\" routing=\"") + routing +
                                "\"><host id=\"h\" speed=\"1Gf\"/></zone>\n"));
    EXPECT_EQ(read_platform(path).gpus.size(), 1u) << routing;
  }
}

}  // namespace
}  // namespace pipegrid::platform
