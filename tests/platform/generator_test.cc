// What `pipegrid platform gen` writes, counted element by element with pugixml: the hosts, routers,
// links and routes of one and two DGX A100 nodes, worked out by hand from the topology
// (platform_xml.h): per node 8 GPUs and an NVSwitch router, 8 NVLink + 1 NVSwitch + 8 GPU PCIe +
// 8 NIC PCIe + 8 InfiniBand links, 8 GPU-to-NVSwitch and 8 GPU-to-leaf routes; per leaf group 8
// leaves with an uplink each and a route to the spine; one spine. And one H800 node byte for byte
// against a reviewed golden file.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "platform_test_support.h"

namespace pipegrid::platform {
namespace {

using test_support::generated_xml;

struct Counts {
  std::size_t hosts = 0, routers = 0, links = 0, routes = 0;
};

Counts count_elements(const std::string& xml) {
  pugi::xml_document document;
  EXPECT_TRUE(document.load_string(xml.c_str()));
  const pugi::xml_node zone = document.child("platform").child("zone");
  Counts counts;
  for (const pugi::xml_node& child : zone.children()) {
    const std::string_view name = child.name();
    counts.hosts += name == "host";
    counts.routers += name == "router";
    counts.links += name == "link";
    counts.routes += name == "route";
  }
  return counts;
}

TEST(Generator, OneNode) {
  const Counts counts = count_elements(generated_xml("dgx-a100", 1));
  EXPECT_EQ(counts.hosts, 8u);
  EXPECT_EQ(counts.routers, 1u + 8 + 1);              // node0-nvswitch, leaf0-rail0…7, spine
  EXPECT_EQ(counts.links, 8u + 1 + 8 + 8 + 8 + 8);    // nvlink, nvswitch, GPU and NIC pcie, ib, uplinks
  EXPECT_EQ(counts.routes, 8u + 8 + 8);               // GPU to NVSwitch, GPU to leaf, leaf to spine
}

TEST(Generator, TwoNodesShareTheLeafSwitches) {
  const Counts counts = count_elements(generated_xml("dgx-a100", 2));
  EXPECT_EQ(counts.hosts, 16u);
  EXPECT_EQ(counts.routers, 2u + 8 + 1);
  EXPECT_EQ(counts.links, 2 * (8u + 1 + 8 + 8 + 8) + 8);
  EXPECT_EQ(counts.routes, 2 * (8u + 8) + 8);
}

TEST(Generator, NodesBeyondAScalableUnitOpenANewLeafGroup) {
  // 45 nodes, 20 per leaf group: groups of 20, 20 and 5.
  const Counts counts = count_elements(generated_xml("dgx-a100", 45));
  EXPECT_EQ(counts.routers, 45u + 3 * 8 + 1);
  EXPECT_EQ(counts.links, 45 * (8u + 1 + 8 + 8 + 8) + 3 * 8);
}

TEST(Generator, StartsWithTheDtdAndTheNetworkModel) {
  const std::string xml = generated_xml("dgx-a100", 1);
  EXPECT_EQ(xml.substr(0, xml.find("\n<!--")),
            "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">");
  EXPECT_NE(xml.find("<platform version=\"4.1\">\n"
                     "  <config>\n"
                     "    <prop id=\"network/model\" value=\"CM02\"/>\n"
                     "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
                     "    <prop id=\"network/latency-factor\" value=\"1.0\"/>\n"
                     "    <prop id=\"network/bandwidth-factor\" value=\"1.0\"/>\n"
                     "    <prop id=\"network/weight-S\" value=\"0\"/>\n"
                     "    <prop id=\"network/TCP-gamma\" value=\"0\"/>\n"
                     "  </config>\n"
                     "  <zone id=\"cluster\" routing=\"DijkstraCache\">\n"),
            std::string::npos);
}

TEST(Generator, GpuHostsCarryWhatTheExecutorReads) {
  EXPECT_NE(generated_xml("dgx-a100", 2).find("    <host id=\"node1-gpu3\" speed=\"312Tf\">\n"
                                              "      <prop id=\"role\" value=\"gpu\"/>\n"
                                              "      <prop id=\"node\" value=\"1\"/>\n"
                                              "      <prop id=\"gpu\" value=\"3\"/>\n"
                                              "      <prop id=\"memory\" value=\"85899345920\"/>\n"
                                              "      <prop id=\"gpu_model\" value=\"A100\"/>\n"
                                              "    </host>\n"),
            std::string::npos);
}

TEST(Generator, RoutesJoinOnlyAdjacentNetpoints) {
  const std::string xml = generated_xml("dgx-a100", 2);
  EXPECT_NE(xml.find(R"(<route src="node1-gpu2" dst="node1-nvswitch"><link_ctn id="node1-gpu2-nvlink" direction="UP"/>)"
                     R"(<link_ctn id="node1-nvswitch" direction="UP"/></route>)"),
            std::string::npos);
  EXPECT_NE(xml.find(R"(<route src="node1-gpu5" dst="leaf0-rail5"><link_ctn id="node1-gpu5-pcie" direction="UP"/>)"
                     R"(<link_ctn id="node1-nic5-pcie" direction="UP"/><link_ctn id="node1-nic5-ib" direction="UP"/>)"
                     R"(</route>)"),
            std::string::npos);
  EXPECT_NE(xml.find(R"(<route src="leaf0-rail7" dst="spine"><link_ctn id="leaf0-rail7-up" direction="UP"/></route>)"),
            std::string::npos);
}

TEST(Generator, EveryLinkIsSplitDuplex) {
  const std::string xml = generated_xml("dgx-h100", 2);
  const std::string split_duplex = "sharing_policy=\"SPLITDUPLEX\"/>\n";
  std::size_t links = 0, split = 0;
  for (auto at = xml.find("<link id="); at != std::string::npos; at = xml.find("<link id=", at + 1)) {
    ++links;
    split += xml.compare(xml.find("sharing_policy=", at), split_duplex.size(), split_duplex) == 0;
  }
  EXPECT_EQ(links, 74u);
  EXPECT_EQ(split, links);
}

// tests/data/platforms/golden-h800-1node.xml: `pipegrid platform gen --preset h800 --nodes 1`, written
// once and reviewed line by line against platform_xml.h and presets.cc. One node is the smallest
// cluster with every element kind: 8 hosts node0-gpu{0…7} (989Tf, the H100's dense bf16 peak; 80 GiB
// = 85899345920 bytes; gpu_model H800); routers node0-nvswitch, leaf0-rail{0…7} (one leaf group of 8
// rails) and spine = 10; links 8 nvlink (160GBps, DeepSeek's H800 figure; 500ns) + 1 nvswitch (8 ×
// 160 = 1.28TBps, 0s) + 8 GPU pcie (Gen5 64GBps, 250ns) + 8 NIC pcie + 8 ib (NDR 50GBps, 1us) + 8
// leaf uplinks (one node's port per rail, oversubscription 1: 50GBps, 0s) = 41, all SPLITDUPLEX;
// routes 8 GPU to NVSwitch [nvlink, nvswitch] + 8 GPU g to leaf0-rail g [GPU pcie, NIC g pcie, NIC g
// ib] + 8 leaf to spine [up] = 24. The file was made by another process than this test's: the bytes
// do not depend on the run.
const std::string kGolden = std::string(PIPEGRID_TEST_DATA) + "/platforms/golden-h800-1node.xml";

TEST(Generator, OneH800NodeIsTheReviewedGoldenFile) {
  const std::string golden = test_support::read_text(kGolden);
  const Counts counts = count_elements(golden);
  EXPECT_EQ(counts.hosts, 8u);
  EXPECT_EQ(counts.routers, 10u);
  EXPECT_EQ(counts.links, 41u);
  EXPECT_EQ(counts.routes, 24u);
  EXPECT_EQ(generated_xml("h800", 1), golden);
}

}  // namespace
}  // namespace pipegrid::platform
