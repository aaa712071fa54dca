// What read_platform returns for a generated platform and for a hand-written one: the GPUs sorted by
// (node, gpu) from their props, the links with their numbers, the network model.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "platform_test_support.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::platform {
namespace {

using test_support::generated_xml;
using test_support::write_temp_file;

TEST(Reader, GeneratedTwoNodes) {
  const PlatformFacts facts = read_platform(write_temp_file("two.xml", generated_xml("dgx-a100", 2)));
  ASSERT_EQ(facts.gpus.size(), 16u);
  EXPECT_EQ(facts.nodes, 2);
  for (std::size_t i = 0; i < facts.gpus.size(); ++i) {
    const GpuHost& gpu = facts.gpus[i];
    EXPECT_EQ(gpu.node, static_cast<int>(i / 8));
    EXPECT_EQ(gpu.gpu, static_cast<int>(i % 8));
    EXPECT_EQ(gpu.name, fmt::format("node{}-gpu{}", gpu.node, gpu.gpu));
    EXPECT_EQ(gpu.speed, 312e12);
    EXPECT_EQ(gpu.memory, 80LL << 30);
    EXPECT_EQ(gpu.model, "A100");
  }
  EXPECT_EQ(facts.links.size(), 74u);
  EXPECT_EQ(facts.routes.size(), 40u);
  const LinkFacts* ib = facts.find_link("node1-nic2-ib");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->bandwidth, 25e9);
  EXPECT_EQ(ib->latency, 1e-6);
  EXPECT_EQ(ib->sharing_policy, "SPLITDUPLEX");
  EXPECT_EQ(facts.network_model, "CM02");
  EXPECT_EQ(facts.routing, "DijkstraCache");
  EXPECT_EQ(facts.routers.size(), 11u);
  EXPECT_TRUE(facts.other_hosts.empty());
}

TEST(Reader, HandWrittenGpusAreSortedByTheirPropsNotTheirNames) {
  const PlatformFacts facts = read_platform(write_temp_file("hand.xml", R"(<?xml version='1.0'?>
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="b" speed="100Tf,50Tf"><prop id="role" value="gpu"/><prop id="node" value="1"/><prop id="gpu" value="0"/><prop id="memory" value="1000"/></host>
    <host id="cpu" speed="1Gf"/>
    <host id="a" speed="2e14"><prop id="role" value="gpu"/><prop id="node" value="0"/><prop id="gpu" value="1"/><prop id="memory" value="2000"/></host>
    <host id="c" speed="1Pf"><prop id="role" value="gpu"/><prop id="node" value="0"/><prop id="gpu" value="0"/><prop id="memory" value="3000"/></host>
    <link id="wire" bandwidth="1GBps" sharing_policy="FULLDUPLEX"/>
    <route src="a" dst="b"><link_ctn id="wire" direction="UP"/></route>
  </zone>
</platform>
)"));
  ASSERT_EQ(facts.gpus.size(), 3u);
  EXPECT_EQ(facts.gpus[0].name, "c");
  EXPECT_EQ(facts.gpus[1].name, "a");
  EXPECT_EQ(facts.gpus[2].name, "b");
  EXPECT_EQ(facts.gpus[2].speed, 100e12);  // pstate 0
  EXPECT_EQ(facts.gpus[1].speed, 2e14);    // unit-less is flop/s
  EXPECT_EQ(facts.gpus[1].memory, 2000);
  EXPECT_EQ(facts.gpus[1].model, "");
  EXPECT_EQ(facts.nodes, 2);
  EXPECT_EQ(facts.other_hosts, std::vector<std::string>{"cpu"});
  EXPECT_TRUE(facts.has_host("cpu"));
  EXPECT_FALSE(facts.has_host("wire"));
  EXPECT_EQ(facts.find_link("wire")->latency, 0);  // SimGrid's default
  EXPECT_EQ(facts.find_link("wire")->sharing_policy, "SPLITDUPLEX");
  EXPECT_EQ(facts.network_model, "CM02");  // pipegrid's default when the file says nothing
  EXPECT_TRUE(facts.network_model_defaulted);
}

}  // namespace
}  // namespace pipegrid::platform
