// Platform files a fuzzer or a hostile user writes, read as read_platform reads them: zones nested
// past what SimGrid 3.32's parser holds, <config> values outside what SimGrid runs, route queries
// SimGrid 3.32 would crash on. Each is one line naming the file and the rule, or a fact read.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "platform_test_support.h"
#include "sim/platform/dijkstra_gap.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/simgrid_config.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::error_of;
using test_support::write_temp_file;

const std::string kGpu = R"(<prop id="role" value="gpu"/><prop id="node" value="{}"/><prop id="gpu" value="0"/>)"
                         R"(<prop id="memory" value="1000"/>)";

// `zones` zones each in the one before (z0 outermost, line 3 + i for zi), the innermost holding two
// GPUs and their route.
std::string nested(int zones) {
  std::string xml = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n";
  for (int i = 0; i < zones; ++i) xml += fmt::format("<zone id=\"z{}\" routing=\"Full\">\n", i);
  xml += fmt::format("<host id=\"gpu0\" speed=\"1Tf\">{}</host>\n", fmt::format(fmt::runtime(kGpu), 0));
  xml += fmt::format("<host id=\"gpu1\" speed=\"1Tf\">{}</host>\n", fmt::format(fmt::runtime(kGpu), 1));
  xml += "<link id=\"wire\" bandwidth=\"1GBps\" latency=\"0\"/>\n<route src=\"gpu0\" dst=\"gpu1\"><link_ctn "
         "id=\"wire\"/></route>\n";
  for (int i = 0; i < zones; ++i) xml += "</zone>\n";
  return xml + "</platform>\n";
}

TEST(HostilePlatform, ZonesNestUpToTheLimitAndNoDeeper) {
  EXPECT_EQ(read_platform(write_temp_file("deep.xml", nested(100))).zones.size(), 100u);
  const std::string path = write_temp_file("deeper.xml", nested(101));
  // z100 opens on line 103: the 101st zone.
  EXPECT_EQ(error_of([&] { read_platform(path); }),
            path + ":103: <zone id=\"z100\">: zones nest more than 100 deep; SimGrid 3.32's parser corrupts its "
                   "memory on deep nesting (platforms/README.md)");
  // 100 000 deep (a segmentation fault of the reader's own recursion before): the same line.
  const std::string deepest = write_temp_file("deepest.xml", nested(100'000));
  EXPECT_EQ(error_of([&] { read_platform(deepest); }),
            deepest + ":103: <zone id=\"z100\">: zones nest more than 100 deep; SimGrid 3.32's parser corrupts its "
                      "memory on deep nesting (platforms/README.md)");
}

TEST(HostilePlatform, NumericSettingsAreRangeChecked) {
  const std::pair<std::pair<std::string, std::string>, std::string> cases[] = {
      {{"surf/precision", "1e-9"}, ""},
      {{"surf/precision", "0.001"}, ""},
      {{"surf/precision", "0.01"}, "must be positive and at most 0.001 s (at 0 or below the run never ends; a coarser "
                                   "clock merges events: at 10 s a 9.2 s run takes 40.4 s)"},
      {{"maxmin/precision", "1e-5"}, ""},
      {{"maxmin/precision", "-1"}, "must be positive and at most 0.01 (SimGrid's solver fails from 1 on and crashes on "
                                   "a negative one)"},
      {{"maxmin/precision", "1"}, "must be positive and at most 0.01 (SimGrid's solver fails from 1 on and crashes on "
                                  "a negative one)"},
      {{"bmf/precision", "0"}, "must be positive and at most 0.01"},
      {{"bmf/max-iterations", "0"}, "must be at least 1 (SimGrid's BMF solver refuses fewer)"},
      {{"maxmin/concurrency-limit", "-1"}, ""},
      {{"maxmin/concurrency-limit", "1"}, ""},
      {{"maxmin/concurrency-limit", "-2"}, "must be -1 (no limit) or at least 1: at 0 no flow or computation can run, "
                                           "a false deadlock"},
      {{"network/bandwidth-factor", "0.97"}, ""},
      {{"network/bandwidth-factor", "-1"}, "must be positive (it multiplies every link's bandwidth; SimGrid aborts on "
                                           "0)"},
      {{"network/latency-factor", "0"}, ""},
      {{"network/TCP-gamma", "0"}, ""},
      {{"network/TCP-gamma", "-1"}, "must not be negative (0: no window bound)"},
      {{"network/weight-S", "-1"}, "must not be negative (SimGrid ignores a negative one)"},
      {{"network/loopback-bw", "0"}, "must be positive"},
      {{"network/loopback-lat", "-1e-6"}, "must not be negative"},
  };
  for (const auto& [setting, rule] : cases)
    EXPECT_EQ(config_rule(setting.first, setting.second), rule) << setting.first << " = " << setting.second;
}

TEST(HostilePlatform, ABandwidthProfileIsKeptWithItsLeastValue) {
  write_temp_file("bw-least.txt", "0 1e9\n1 2.5e8\n2 5e8\n");
  std::string xml = nested(1);
  xml.replace(xml.find("latency=\"0\""), 11, "latency=\"0\" bandwidth_file=\"bw-least.txt\"");
  const PlatformFacts facts = read_platform(write_temp_file("bw-profile.xml", xml));
  ASSERT_TRUE(facts.has_profile("wire", ProfileOf::LinkBandwidth));
  EXPECT_EQ(facts.resource_profiles[0].source, "bandwidth_file bw-least.txt");
  EXPECT_EQ(least_value(facts.resource_profiles[0].text), 2.5e8);
}

// One zone routed `routing` over gpu0, gpu1 and gpu2, one route between gpu0 and gpu1.
std::string three_gpus(const std::string& routing) {
  std::string xml = nested(1);
  xml.replace(xml.find("routing=\"Full\""), 14, "routing=\"" + routing + "\"");
  xml.replace(xml.find("<link id"), 0,
              fmt::format("<host id=\"gpu2\" speed=\"1Tf\">{}</host>\n", fmt::format(fmt::runtime(kGpu), 2)));
  return xml;
}

TEST(HostilePlatform, RouteQueriesSimGridWouldCrashOnAreFound) {
  // SimGrid 3.32's DijkstraZone dereferences the graph node of a netpoint no route names.
  const PlatformFacts dijkstra = read_platform(write_temp_file("dijkstra.xml", three_gpus("Dijkstra")));
  EXPECT_EQ(dijkstra_gap(dijkstra, "gpu0", "gpu1"), "");
  EXPECT_EQ(dijkstra_gap(dijkstra, "gpu0", "gpu2"),
            "gpu2 is on no route of zone z0, routed Dijkstra, and SimGrid 3.32 crashes on such a query");
  EXPECT_EQ(dijkstra_gap(dijkstra, "gpu2", "gpu2"),
            "gpu2 is on no route of zone z0, routed Dijkstra, and SimGrid 3.32 crashes on such a query");
  // Floyd answers such a query with an exception, which is "no route" already.
  EXPECT_EQ(dijkstra_gap(read_platform(write_temp_file("floyd.xml", three_gpus("Floyd"))), "gpu0", "gpu2"), "");
  // Zones of a Dijkstra zone: a zone no zoneRoute names, and a zone's gateway followed inside it.
  const std::string zones = R"(<?xml version='1.0'?>
<platform version="4.1">
 <zone id="top" routing="Dijkstra">
  <zone id="a" routing="Dijkstra">
   <host id="gpu0" speed="1Tf">)" + fmt::format(fmt::runtime(kGpu), 0) + R"(</host>
   <router id="a-gw"/>
  </zone>
  <zone id="b" routing="Full"><host id="gpu1" speed="1Tf">)" + fmt::format(fmt::runtime(kGpu), 1) + R"(</host></zone>
  <zone id="c" routing="Full"><host id="gpu2" speed="1Tf">)" + fmt::format(fmt::runtime(kGpu), 2) + R"(</host></zone>
  <link id="wire" bandwidth="1GBps" latency="0"/>
  <zoneRoute src="a" dst="b" gw_src="a-gw" gw_dst="gpu1"><link_ctn id="wire"/></zoneRoute>
 </zone>
</platform>
)";
  const PlatformFacts tree = read_platform(write_temp_file("zones.xml", zones));
  EXPECT_EQ(dijkstra_gap(tree, "gpu1", "gpu2"),
            "c is on no route of zone top, routed Dijkstra, and SimGrid 3.32 crashes on such a query");
  // gpu0 to gpu1 leaves zone a by its gateway a-gw, and zone a has no route from gpu0 to it.
  EXPECT_EQ(dijkstra_gap(tree, "gpu0", "gpu1"),
            "gpu0 is on no route of zone a, routed Dijkstra, and SimGrid 3.32 crashes on such a query");
}

}  // namespace
}  // namespace pipegrid::platform
