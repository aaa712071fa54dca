// `pipegrid platform info` and `simulate` on platform files that crashed them: zones nested thousands
// deep (a segmentation fault of the reader; a few hundred corrupted SimGrid's parser's heap) and a
// route asked of a Dijkstra zone that has none (a segmentation fault inside SimGrid). Each is exit 2
// and one line now.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "command_runner.h"
#include "platform_test_support.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::run_pipegrid;
using test_support::write_temp_file;

const std::string kGpu = R"(<prop id="role" value="gpu"/><prop id="node" value="{}"/><prop id="gpu" value="0"/>)"
                         R"(<prop id="memory" value="1000"/>)";

// `zones` zones each in the one before, the innermost (routed `routing`) holding gpu0, gpu1 and gpu2
// and a route between gpu0 and gpu1 only.
std::string platform(int zones, const std::string& routing = "Full") {
  std::string xml = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                    "<platform version=\"4.1\">\n";
  for (int i = 0; i < zones; ++i)
    xml += fmt::format("<zone id=\"z{}\" routing=\"{}\">\n", i, i + 1 == zones ? routing : "Full");
  for (int g = 0; g < 3; ++g)
    xml += fmt::format("<host id=\"gpu{}\" speed=\"1Tf\">{}</host>\n", g, fmt::format(fmt::runtime(kGpu), g));
  xml += "<link id=\"wire\" bandwidth=\"1GBps\" latency=\"0\"/>\n<route src=\"gpu0\" dst=\"gpu1\"><link_ctn "
         "id=\"wire\"/></route>\n";
  for (int i = 0; i < zones; ++i) xml += "</zone>\n";
  return xml + "</platform>\n";
}

const std::string kJob = "--schedule 1f1b --pp 2 --microbatches 2 --time-f 1 --time-b 2";

TEST(HostilePlatformCli, DeepZonesAreOneLineNotACrash) {
  // 100 000 zones: `platform info` ended in SIGSEGV (exit 139); 500, and `simulate` aborted inside
  // SimGrid's parser. Both stop at the 101st zone, line 104.
  for (const int zones : {500, 100'000}) {
    const std::string path = write_temp_file(fmt::format("deep-{}.xml", zones), platform(zones));
    const std::string line = "pipegrid: error: " + path + ":104: <zone id=\"z100\">: zones nest more than 100 deep; "
                             "SimGrid 3.32's parser corrupts its memory on deep nesting (platforms/README.md)\n";
    const auto info = run_pipegrid("platform info " + path);
    EXPECT_EQ(info.exit_code, 2) << zones;
    EXPECT_EQ(info.err, line);
    const auto run = run_pipegrid("simulate --platform " + path + " " + kJob);
    EXPECT_EQ(run.exit_code, 2) << zones;
    EXPECT_EQ(run.err, line);
  }
  // 100 zones are read, and run.
  const std::string fine = write_temp_file("deep-100.xml", platform(100));
  const auto run = run_pipegrid("simulate --platform " + fine + " " + kJob + " --log-level error");
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(HostilePlatformCli, ARouteADijkstraZoneLacksIsNoRouteNotACrash) {
  // gpu2 is on no route: SimGrid 3.32's DijkstraZone crashed on the query (exit 70, "internal error:
  // segmentation fault").
  for (const char* routing : {"Dijkstra", "DijkstraCache"}) {
    const std::string path = write_temp_file(fmt::format("{}.xml", routing), platform(1, routing));
    const auto r = run_pipegrid("platform info " + path + " --route gpu0 gpu2 --log-level error");
    EXPECT_EQ(r.exit_code, 2) << routing;
    EXPECT_EQ(r.err, fmt::format("pipegrid: error: {}: no route from gpu0 to gpu2 (gpu2 is on no route of zone z0, "
                                 "routed {}, and SimGrid 3.32 crashes on such a query)\n",
                                 path, routing));
    // The route that exists is still shown.
    EXPECT_EQ(run_pipegrid("platform info " + path + " --route gpu0 gpu1 --log-level error").exit_code, 0);
  }
  // In a Floyd zone the same query is the file's own "no route", as before.
  const std::string floyd = write_temp_file("Floyd.xml", platform(1, "Floyd"));
  const auto r = run_pipegrid("platform info " + floyd + " --route gpu0 gpu2 --log-level error");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: " + floyd + ": no route from gpu0 to gpu2\n");
}

}  // namespace
}  // namespace pipegrid::platform
