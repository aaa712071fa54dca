// Standard SimGrid platforms as a user runs them: SimGrid's own example clusters and a hand-written
// pair of zones joined by a <zoneRoute> run a 1F1B job whose makespan is the hand computation's;
// `platform info` says what it inferred; a route SimGrid lacks is one line and exit code 2; the
// network model is pipegrid's default (CM02) unless the file sets one.
//
// The job throughout: 1F1B on pp 2 with one micro-batch, F = 1, B = 2, --p2p-bytes S, no optimizer
// all-reduce. Its critical path is F on rank 0, the activation's transfer t, F and B on rank 1, the
// gradient's transfer t, B on rank 0: makespan = 2F + 2B + 2t = 6 + 2t. Under CM02 (factors 1.0) a
// lone transfer takes t = L + S / bw, L the route's summed latencies, bw its narrowest link.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "platform_test_support.h"

namespace pipegrid::platform {
namespace {

using pipegrid::test_support::run_pipegrid;
using test_support::kPlatforms;
using test_support::read_text;
using test_support::replace_once;
using test_support::write_temp_file;

const std::string kExamples = kPlatforms + "/simgrid-examples/";
const std::string kTwoZones = std::string(PIPEGRID_TEST_DATA) + "/platforms/two-zones.xml";
constexpr const char* kJob =
    " --schedule 1f1b --pp 2 --microbatches 1 --time-f 1 --time-b 2 --p2p-bytes 1e6 --optimizer-sync none --format json";

std::string notice(const std::string& file) {
  return "pipegrid: notice: " + file +
         " sets no network/model in <config>: running pipegrid's default CM02 (bandwidth and latency factors 1.0, no "
         "cross-traffic); choose another with <prop id=\"network/model\" value=\"LV08\"/> in <config> "
         "(platforms/README.md)\n";
}

double makespan_of(const std::string& platform, std::string& err) {
  const auto r = run_pipegrid("simulate --platform " + platform + kJob);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  err = r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out)["makespan"].get<double>() : -1;
}

// Both clusters give every host a link of bw = 125MBps, lat = 50us. pp 2 runs on the first two GPUs,
// node-0 and node-1: in the fat tree (2;4,4;1,2;1,2) both under leaf switch 0, in the dragonfly
// (3,4;4,3;5,1;2: 2 hosts per router) both on router 0, so the route is node-0's link up and node-1's
// down (the dragonfly's limiter links, 150MBps and no latency, are wider): L = 100us, bw = 125MBps,
// t = 1e-4 + 1e6 / 125e6 = 0.0081 s, makespan = 6.0162 s.
TEST(StandardXmlCli, SimGridExampleClustersRunOneFOneB) {
  for (const char* file : {"cluster_fat_tree.xml", "cluster_dragonfly.xml"}) {
    SCOPED_TRACE(file);
    std::string err;
    EXPECT_NEAR(makespan_of(kExamples + file, err), 6 + 2 * (1e-4 + 1e6 / 125e6), 1e-9);
    EXPECT_EQ(err, notice(kExamples + file));  // once, naming the file
  }
}

// The GPUs `platform info` infers, counted by hand from each file: the fat tree's hosts are the
// product of its child counts 4 × 4 = 16 (radical 0-15), the dragonfly's groups × chassis × routers ×
// hosts = 3 × 4 × 5 × 2 = 120 (radical 0-119). No host has role=gpu: each is a GPU, one per node, with
// the default memory 80 GiB = 85899345920 bytes.
TEST(StandardXmlCli, InfoSaysWhatItInferredFromTheExamples) {
  for (const auto& [file, hosts, topology] :
       {std::tuple{"cluster_fat_tree.xml", 16, "FAT_TREE 2;4,4;1,2;1,2"},
        std::tuple{"cluster_dragonfly.xml", 120, "DRAGONFLY 3,4;4,3;5,1;2"}}) {
    SCOPED_TRACE(file);
    const auto r = run_pipegrid(std::string("platform info ") + kExamples + file);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    for (const std::string& line : std::vector<std::string>{
             fmt::format("GPUs: {} on {} nodes, 1 per node\n", hosts, hosts),
          "GPU memory: 85899345920 bytes (80 GiB)\n",
          fmt::format("inferred: GPUs: no host has role=gpu, so each of the {} hosts is taken as a GPU "
                      "(node-0.simgrid.org to node-{}.simgrid.org)\n",
                      hosts, hosts - 1),
          fmt::format("inferred: nodes: cluster bob_cluster's {} GPUs are one node each (no gpus_per_node prop), in "
                      "host order\n",
                      hosts),
          fmt::format("inferred: memory: 80GiB = 85899345920 bytes on the {} GPUs without a memory prop (pipegrid's "
                      "default for inferred GPUs: the HBM of an 80 GB A100 or H100)\n",
                      hosts),
          fmt::format("cluster bob_cluster (line {}): {}, {} hosts, links 125MBps 50us SPLITDUPLEX",
                      hosts == 16 ? 11 : 5, topology, hosts),
          std::string("network model: CM02 (pipegrid's default, since the file's <config> sets no network/model")})
      EXPECT_NE(r.out.find(line), std::string::npos) << line << "\nin:\n" << r.out;
  }
}

// From a to b: a-up (10GBps, 1us), wan (1GBps, 10us), b-up (10GBps, 1us): L = 12us, bw = 1GBps,
// t = 12e-6 + 1e6 / 1e9 = 0.001012 s, makespan = 6.002024 s.
TEST(StandardXmlCli, ZonesJoinedByAZoneRouteRunAtTheHandComputedPace) {
  std::string err;
  EXPECT_NEAR(makespan_of(kTwoZones, err), 6 + 2 * (12e-6 + 1e6 / 1e9), 1e-9);
  EXPECT_EQ(err, notice(kTwoZones));
}

// An explicit model is left as it is: LV08 multiplies latencies by 13.01 and bandwidths by 0.97
// (SimGrid's network_cm02.cpp), so t = 13.01 × 12e-6 + 1e6 / (0.97 × 1e9); no notice.
TEST(StandardXmlCli, AnExplicitNetworkModelIsRespected) {
  const std::string path = write_temp_file(
      "two-zones-lv08.xml", replace_once(read_text(kTwoZones), "<platform version=\"4.1\">",
                                         "<platform version=\"4.1\">\n  <config><prop id=\"network/model\" "
                                         "value=\"LV08\"/></config>"));
  std::string err;
  EXPECT_NEAR(makespan_of(path, err), 6 + 2 * (13.01 * 12e-6 + 1e6 / (0.97 * 1e9)), 1e-9);
  EXPECT_EQ(err, "");
  const auto info = run_pipegrid("platform info " + path);
  EXPECT_NE(info.out.find("network model: LV08\n"), std::string::npos) << info.out;
}

// A third zone that no zone route reaches: SimGrid has no route from b to c (its Full zone throws
// "Bad gateways" for the missing zone route), which pp 3 needs — one line and exit code 2, not a crash.
TEST(StandardXmlCli, AMissingZoneRouteIsOneLineAndExitCodeTwo) {
  const std::string path = write_temp_file(
      "three-zones.xml",
      replace_once(read_text(kTwoZones), "    <link id=\"wan\"",
                   "    <zone id=\"third\" routing=\"Full\">\n"
                   "      <host id=\"c\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" value=\"2\"/>"
                   "<prop id=\"gpu\" value=\"0\"/><prop id=\"memory\" value=\"1e10\"/></host>\n"
                   "    </zone>\n"
                   "    <link id=\"wan\""));
  const auto r = run_pipegrid("simulate --platform " + path +
                              " --schedule 1f1b --pp 3 --microbatches 1 --time-f 1 --time-b 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, notice(path) + "pipegrid: error: " + path +
                       ": no route from b to c, which pipeline transfers between pp ranks 1 and 2 need\n");
  const auto route = run_pipegrid("platform info " + path + " --route b c");
  EXPECT_EQ(route.exit_code, 2);
  EXPECT_NE(route.err.find("pipegrid: error: " + path + ": no route from b to c"), std::string::npos) << route.err;
}

// Two GPUs of zone left with no route between them: SimGrid's Full zone answers route_to with no links
// (a transfer would take no time), which is refused as a missing route.
TEST(StandardXmlCli, AFullZoneWithoutTheRouteIsNoRoute) {
  const std::string path = write_temp_file(
      "no-intra-route.xml",
      replace_once(read_text(kTwoZones), "      <router id=\"left-gw\"/>",
                   "      <host id=\"a2\" speed=\"1Tf\"><prop id=\"role\" value=\"gpu\"/><prop id=\"node\" "
                   "value=\"0\"/><prop id=\"gpu\" value=\"1\"/><prop id=\"memory\" value=\"80GiB\"/></host>\n"
                   "      <router id=\"left-gw\"/>"));
  const auto r = run_pipegrid("simulate --platform " + path +
                              " --schedule 1f1b --pp 2 --microbatches 1 --time-f 1 --time-b 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, notice(path) + "pipegrid: error: " + path +
                       ": no route from a to a2, which pipeline transfers between pp ranks 0 and 1 need\n");
}

// SimGrid's EmptyZone dies (xbt_die, no exception to catch) when asked a route: a job that needs one
// from a zone routed None is refused before SimGrid starts.
TEST(StandardXmlCli, AZoneRoutedNoneHasNoRoutes) {
  const std::string path = write_temp_file(
      "none.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n"
                  "<host id=\"x\" speed=\"1Gf\"/><host id=\"y\" speed=\"1Gf\"/>\n</zone>\n</platform>\n");
  const auto r = run_pipegrid("simulate --platform " + path +
                              " --schedule 1f1b --pp 2 --microbatches 1 --time-f 1 --time-b 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: " + path +
                       ": no route from x to y, which pipeline transfers between pp ranks 0 and 1 need (x is in a zone "
                       "routed None)\n");
}

}  // namespace
}  // namespace pipegrid::platform
