// The numbers `pipegrid platform gen` writes for each preset and option (presets.h gives their
// sources), and the one-line errors of bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <pugixml.hpp>

#include "platform_test_support.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::generated_xml;

// Every attribute of the element with that id, read back from the generated text.
class Generated {
 public:
  explicit Generated(const std::string& xml) { EXPECT_TRUE(document_.load_string(xml.c_str())); }
  // A switch's router and link share a name: `element` says which.
  std::string attribute(const std::string& id, const char* name, const char* element = "*") const {
    const auto found = document_.select_node(fmt::format("//{}[@id='{}']", element, id).c_str());
    EXPECT_TRUE(found) << id;
    return found.node().attribute(name).value();
  }
  double bandwidth(const std::string& link) const { return *parse_bandwidth(attribute(link, "bandwidth", "link")); }
  bool has(const std::string& id) const { return bool(document_.select_node(("//*[@id='" + id + "']").c_str())); }
  std::size_t count(const char* xpath) const { return document_.select_nodes(xpath).size(); }

 private:
  pugi::xml_document document_;
};

TEST(GeneratorOptions, DgxA100) {
  const Generated xml(generated_xml("dgx-a100", 1));
  EXPECT_EQ(xml.attribute("node0-gpu0", "speed"), "312Tf");
  EXPECT_EQ(xml.bandwidth("node0-gpu0-nvlink"), 300e9);
  EXPECT_EQ(xml.bandwidth("node0-nvswitch"), 8 * 300e9);
  EXPECT_EQ(xml.bandwidth("node0-gpu0-pcie"), 32e9);
  EXPECT_EQ(xml.bandwidth("node0-nic0-ib"), 25e9);  // HDR 200 Gb/s
  EXPECT_EQ(xml.attribute("node0-nic0-ib", "latency"), "1us");
  EXPECT_EQ(xml.bandwidth("node0-nic0-pcie"), 32e9);
  EXPECT_EQ(xml.attribute("node0-nvswitch", "sharing_policy", "link"), "SPLITDUPLEX");
}

TEST(GeneratorOptions, DgxH100) {
  const Generated xml(generated_xml("dgx-h100", 1));
  EXPECT_EQ(xml.attribute("node0-gpu7", "speed"), "989Tf");
  EXPECT_EQ(xml.count("//host[@id='node0-gpu7']/prop[@id='gpu_model'][@value='H100']"), 1u);
  EXPECT_EQ(xml.bandwidth("node0-gpu7-nvlink"), 450e9);
  EXPECT_EQ(xml.bandwidth("node0-gpu7-pcie"), 64e9);
  EXPECT_EQ(xml.bandwidth("node0-nic7-ib"), 50e9);  // NDR 400 Gb/s
}

TEST(GeneratorOptions, H800AsDeepSeekV3ReportsIt) {
  const Generated xml(generated_xml("h800", 1));
  EXPECT_EQ(xml.attribute("node0-gpu0", "speed"), "989Tf");
  EXPECT_EQ(xml.bandwidth("node0-gpu0-nvlink"), 160e9);
  EXPECT_EQ(xml.bandwidth("node0-nic0-ib"), 50e9);
}

TEST(GeneratorOptions, BandwidthsInBitsOrBytes) {
  ClusterOptions options;
  options.nvlink_bandwidth = "2400Gbps";
  options.ib_bandwidth = "100000000000";
  const Generated xml(generated_xml("dgx-a100", 2, options));
  EXPECT_EQ(xml.bandwidth("node1-gpu3-nvlink"), 300e9);
  EXPECT_EQ(xml.bandwidth("node1-nvswitch"), 2400e9);
  EXPECT_EQ(xml.bandwidth("node1-nic3-ib"), 100e9);
  EXPECT_EQ(xml.bandwidth("leaf0-rail3-up"), 2 * 100e9);  // two nodes' ports, non-blocking
}

TEST(GeneratorOptions, OversubscriptionDividesEachLeafsUplink) {
  // 45 nodes at 20 per leaf: 20, 20 and 5 nodes; each uplink = nodes × 25 GB/s / 4.
  ClusterOptions options;
  options.oversubscription = 4;
  const Generated xml(generated_xml("dgx-a100", 45, options));
  EXPECT_EQ(xml.bandwidth("leaf0-rail0-up"), 20 * 25e9 / 4);
  EXPECT_EQ(xml.bandwidth("leaf1-rail7-up"), 20 * 25e9 / 4);
  EXPECT_EQ(xml.bandwidth("leaf2-rail0-up"), 5 * 25e9 / 4);
  EXPECT_FALSE(xml.has("leaf3-rail0"));
}

TEST(GeneratorOptions, FourNicsAreSharedByGpuPairs) {
  ClusterOptions options;
  options.nics_per_node = 4;
  const Generated xml(generated_xml("dgx-a100", 1, options));
  EXPECT_TRUE(xml.has("node0-nic3-ib"));
  EXPECT_TRUE(xml.has("node0-nic3-pcie"));
  EXPECT_FALSE(xml.has("node0-nic4-ib"));
  EXPECT_FALSE(xml.has("node0-nic4-pcie"));
  EXPECT_FALSE(xml.has("leaf0-rail4"));
  for (int nic = 0; nic < 4; ++nic)
    for (int gpu : {2 * nic, 2 * nic + 1}) {
      const std::string route = fmt::format("//route[@src='node0-gpu{}'][@dst='leaf0-rail{}']", gpu, nic);
      EXPECT_EQ(xml.count(route.c_str()), 1u) << route;
      EXPECT_EQ(xml.count((route + fmt::format("/link_ctn[@id='node0-nic{}-ib']", nic)).c_str()), 1u) << route;
      EXPECT_EQ(xml.count((route + fmt::format("/link_ctn[@id='node0-nic{}-pcie']", nic)).c_str()), 1u) << route;
    }
}

TEST(GeneratorOptions, NodesPerLeafSetsTheLeafGroups) {
  ClusterOptions options;
  options.nodes_per_leaf = 1;
  const Generated xml(generated_xml("dgx-h100", 2, options));
  EXPECT_EQ(xml.count("//route[@src='node1-gpu0'][@dst='leaf1-rail0']"), 1u);
  EXPECT_EQ(xml.bandwidth("leaf1-rail0-up"), 50e9);
}

TEST(GeneratorOptions, TheFileNamesTheCommandThatMadeIt) {
  ClusterOptions options;
  options.ib_bandwidth = "200Gbps";  // the preset's own: not repeated
  options.oversubscription = 2;
  options.nics_per_node = 4;
  EXPECT_NE(generated_xml("dgx-a100", 3, options)
                .find(R"(<prop id="generated_by" value="pipegrid platform gen --preset dgx-a100 --nodes 3 )"
                      R"(--nics-per-node 4 --oversubscription 2"/>)"),
            std::string::npos);
}

// XML 1.0 (section 2.5) forbids "--" inside a comment: Python's and libxml2's parsers refuse such a file.
TEST(GeneratorOptions, NoCommentHoldsTwoHyphens) {
  ClusterOptions options;
  options.nics_per_node = 1;
  options.oversubscription = 2;
  for (const std::string& xml : {generated_xml("dgx-a100", 3, options), generated_xml("h800", 2, ClusterOptions{})}) {
    std::size_t comments = 0;
    for (std::size_t open = xml.find("<!--"); open != std::string::npos; open = xml.find("<!--", open + 4)) {
      const std::size_t close = xml.find("-->", open + 4);
      ASSERT_NE(close, std::string::npos);
      EXPECT_EQ(xml.substr(open + 4, close - open - 4).find("--"), std::string::npos) << xml.substr(open, close - open);
      ++comments;
    }
    EXPECT_GT(comments, 1u);
  }
}

TEST(GeneratorOptions, BadOptionsAreOneLineNamingTheFlag) {
  auto error = [](ClusterOptions options) { return error_of([&] { make_cluster_spec(options); }); };
  ClusterOptions ok;
  ok.preset = "dgx-a100";
  ok.nodes = 2;
  ClusterOptions o = ok;
  o.preset = "dgx-v100";
  EXPECT_EQ(error(o), "--preset dgx-v100: must be one of dgx-a100, dgx-h100, dgx-h200, dgx-b200, h800");
  o = ok;
  o.nodes = 0;
  EXPECT_EQ(error(o), "--nodes 0: must be at least 1");
  o = ok;
  o.nics_per_node = 3;
  EXPECT_EQ(error(o), "--nics-per-node 3: must divide the 8 GPUs of a node (1, 2, 4 or 8)");
  o.nics_per_node = 16;
  EXPECT_EQ(error(o), "--nics-per-node 16: must divide the 8 GPUs of a node (1, 2, 4 or 8)");
  o = ok;
  o.oversubscription = 0.5;
  EXPECT_EQ(error(o), "--oversubscription 0.5: must be a finite ratio of at least 1 (1 = non-blocking)");
  o.oversubscription = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error(o), "--oversubscription inf: must be a finite ratio of at least 1 (1 = non-blocking)");
  o.oversubscription = std::nan("");
  EXPECT_EQ(error(o), "--oversubscription nan: must be a finite ratio of at least 1 (1 = non-blocking)");
  o = ok;
  o.ib_bandwidth = "0GBps";
  EXPECT_EQ(error(o), "--ib-bw 0GBps: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second");
  o.ib_bandwidth = "-25GBps";
  EXPECT_EQ(error(o), "--ib-bw -25GBps: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second");
  o = ok;
  o.nvlink_bandwidth = "300GB/s";
  EXPECT_EQ(error(o),
            "--nvlink-bw 300GB/s: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second");
  o = ok;
  o.nodes_per_leaf = 0;
  EXPECT_EQ(error(o), "--nodes-per-leaf 0: must be at least 1");
}

}  // namespace
}  // namespace pipegrid::platform
