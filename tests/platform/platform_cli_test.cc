// `pipegrid platform gen` and `pipegrid platform info` as a user runs them: what they print and their
// exit codes (0 done, 2 bad input with one line naming it).
#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>

#include "command_runner.h"
#include "platform_test_support.h"

namespace pipegrid::platform {
namespace {

using test_support::kPlatforms;
using test_support::read_text;
using test_support::replace_once;
using test_support::write_temp_file;
using pipegrid::test_support::run_pipegrid;

const std::string kTwoNodes = kPlatforms + "/dgx-a100-2node.xml";

TEST(PlatformCli, GenWritesTheCheckedInFile) {
  const auto r = run_pipegrid("platform gen --preset dgx-a100 --nodes 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, read_text(kTwoNodes));
}

TEST(PlatformCli, GenRejectsBadInputInOneLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"--preset dgx-v100 --nodes 1", "--preset dgx-v100: must be one of dgx-a100, dgx-h100, dgx-h200, dgx-b200, h800"},
      {"--preset h800 --nodes 0", "--nodes 0: must be at least 1"},
      {"--preset h800 --nodes -3", "--nodes -3: must be at least 1"},
      {"--preset h800 --nodes 2 --nics-per-node 3", "--nics-per-node 3: must divide the 8 GPUs of a node (1, 2, 4 or 8)"},
      {"--preset h800 --nodes 2 --oversubscription 0.9",
       "--oversubscription 0.9: must be at least 1"},
      {"--preset h800 --nodes 2 --oversubscription inf",
       "--oversubscription inf: must be a finite number"},
      {"--preset h800 --nodes 2 --ib-bw 0Gbps",
       "--ib-bw 0Gbps: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second"},
      {"--preset h800 --nodes 2 --nvlink-bw fast",
       "--nvlink-bw fast: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second"},
      {"--preset h800 --nodes 2 --nodes-per-leaf 0", "--nodes-per-leaf 0: must be at least 1"},
  };
  for (const auto& [args, error] : cases) {
    const auto r = run_pipegrid("platform gen " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err, "pipegrid: error: " + error + "\n") << args;
  }
}

TEST(PlatformCli, InfoSummarisesThePlatform) {
  const auto r = run_pipegrid("platform info " + kTwoNodes);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "platform: " + kTwoNodes +
                "\n"
                "GPUs: 16 on 2 nodes, 8 per node\n"
                "GPU speed: 312Tf\n"
                "GPU memory: 85899345920 bytes (80 GiB)\n"
                "GPU model: A100\n"
                "routers: 11\n"
                "network model: CM02 (network/crosstraffic 0, network/latency-factor 1.0, "
                "network/bandwidth-factor 1.0, network/weight-S 0, network/TCP-gamma 0)\n"
                "routing: DijkstraCache\n"
                "links: 74, routes: 40\n"
                "  class      links  bandwidth  latency  sharing\n"
                "  nvlink        16    300GBps    500ns  SPLITDUPLEX\n"
                "  nvswitch       2    2.4TBps       0s  SPLITDUPLEX\n"
                "  pcie          32     32GBps    250ns  SPLITDUPLEX\n"
                "  ib            16     25GBps      1us  SPLITDUPLEX\n"
                "  up             8     50GBps       0s  SPLITDUPLEX\n");
}

TEST(PlatformCli, InfoShowsHandEdits) {
  std::string text = read_text(kTwoNodes);
  text = replace_once(text, R"(<link id="node1-nic3-ib" bandwidth="25GBps")", R"(<link id="node1-nic3-ib" bandwidth="12.5GBps")");
  text = replace_once(text, R"(<host id="node0-gpu5" speed="312Tf">)", R"(<host id="node0-gpu5" speed="280.8Tf">)");
  const std::string path = write_temp_file("edited.xml", text);
  const auto r = run_pipegrid("platform info " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU speed: 312Tf on 15 GPUs; 280.8Tf on node0-gpu5\n"), std::string::npos) << r.out;
  const auto line = text.substr(0, text.find(R"(<link id="node1-nic3-ib")"));
  const auto line_number = std::count(line.begin(), line.end(), '\n') + 1;
  EXPECT_NE(r.out.find(fmt::format("  ib            16     25GBps      1us  SPLITDUPLEX\n"
                                   "    differs: node1-nic3-ib 12.5GBps 1us SPLITDUPLEX (line {})\n",
                                   line_number)),
            std::string::npos)
      << r.out;
}

// --layout: 2 DGX nodes of 8, tp 2 × dp 4 × pp 2 with ep 4 in Megatron-Core's order. GPU k = t + 2d +
// 8r; the expert layers' etp (= tp, 2) × ep 4 × edp 1: ep rank ⌊k/2⌋ mod 4, so GPU 0's EP group is 0,
// 2, 4, 6 and its ETP group 0, 1. PP groups cross the nodes, every other kind stays in one.
TEST(PlatformCli, InfoLayoutShowsWhereEachGroupLands) {
  const auto r = run_pipegrid("platform info " + kTwoNodes + " --layout --tp 2 --pp 2 --dp 4 --ep 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected =
      "layout tp-cp-ep-dp-pp: 16 of 16 GPUs (tp 2 × cp 1 × dp 4 × pp 2; expert layers etp 2 × ep 4 × edp 1)\n"
      "group   size  groups  within a node  GPU 0's group\n"
      "tp         2       8              8  node0-gpu0 node0-gpu1\n"
      "cp         1      16             16  node0-gpu0\n"
      "dp         4       4              4  node0-gpu0 node0-gpu2 node0-gpu4 node0-gpu6\n"
      "pp         2       8              0  node0-gpu0 node1-gpu0\n"
      "ep         4       4              4  node0-gpu0 node0-gpu2 node0-gpu4 node0-gpu6\n"
      "etp        2       8              8  node0-gpu0 node0-gpu1\n"
      "edp        1      16             16  node0-gpu0\n";
  ASSERT_GE(r.out.size(), expected.size());
  EXPECT_EQ(r.out.substr(r.out.size() - expected.size()), expected);
  const auto bad = run_pipegrid("platform info " + kTwoNodes + " --layout --tp 2 --pp 2 --dp 4 --ep 3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pipegrid: error: --ep 3 --etp 2: ep·etp = 6 must divide tp·cp·dp = 8 (the GPUs of a stage, which "
                     "the expert layers split into etp × ep × expert-data-parallel)\n");
}

// A layout's sizes without --layout would be silently ignored: each is refused, named.
TEST(PlatformCli, InfoRefusesLayoutSizesWithoutLayout) {
  for (const std::string flag : {"--tp 2", "--pp 2", "--placement dp-tp-pp", "--ep 2"}) {
    const auto r = run_pipegrid("platform info " + kTwoNodes + " " + flag);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_EQ(r.err, "pipegrid: error: " + flag.substr(0, flag.find(' ')) +
                         ": lays out a job, which platform info shows with --layout\n");
  }
}

TEST(PlatformCli, InfoRouteAsSimGridComputesIt) {
  const auto r = run_pipegrid("platform info " + kTwoNodes + " --route node0-gpu0 node1-gpu1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // SimGrid's configuration messages are silenced
  const std::string route = r.out.substr(r.out.find("\nroute ") + 1);
  EXPECT_EQ(route,
            "route node0-gpu0 -> node1-gpu1 as SimGrid computes it: 8 links, latency 3us\n"
            "  node0-gpu0 -> leaf0-rail0\n"
            "    node0-gpu0-pcie  UP      32GBps   250ns\n"
            "    node0-nic0-pcie  UP      32GBps   250ns\n"
            "    node0-nic0-ib    UP      25GBps     1us\n"
            "  leaf0-rail0 -> spine\n"
            "    leaf0-rail0-up   UP      50GBps      0s\n"
            "  spine -> leaf0-rail1\n"
            "    leaf0-rail1-up   DOWN    50GBps      0s\n"
            "  leaf0-rail1 -> node1-gpu1\n"
            "    node1-nic1-ib    DOWN    25GBps     1us\n"
            "    node1-nic1-pcie  DOWN    32GBps   250ns\n"
            "    node1-gpu1-pcie  DOWN    32GBps   250ns\n"
            "bottleneck: node0-nic0-ib UP at 25GBps (SPLITDUPLEX: this direction only; the other has its own 25GBps)\n"
            "  as narrow: node1-nic1-ib DOWN\n");
}

TEST(PlatformCli, InfoRouteThroughAHalvedLink) {
  const std::string path = write_temp_file(
      "half-ib.xml", replace_once(read_text(kTwoNodes), R"(<link id="node1-nic1-ib" bandwidth="25GBps")",
                                  R"(<link id="node1-nic1-ib" bandwidth="12.5GBps")"));
  const auto r = run_pipegrid("platform info " + path + " --route node0-gpu0 node1-gpu1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nbottleneck: node1-nic1-ib DOWN at 12.5GBps (SPLITDUPLEX: this direction only; the other "
                       "has its own 12.5GBps)\n"),
            std::string::npos)
      << r.out;
}

TEST(PlatformCli, InfoRouteToAnUnknownHostFailsBeforeSimGrid) {
  const auto r = run_pipegrid("platform info " + kTwoNodes + " --route node9-gpu0 node0-gpu0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipegrid: error: --route node9-gpu0: no host of that name in " + kTwoNodes + "\n");
}

TEST(PlatformCli, InfoOfABrokenFileIsOneLine) {
  const std::string path = write_temp_file(
      "zero-ib.xml", replace_once(read_text(kTwoNodes), R"(<link id="node0-nic0-ib" bandwidth="25GBps")",
                                  R"(<link id="node0-nic0-ib" bandwidth="0GBps")"));
  const auto r = run_pipegrid("platform info " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  const std::string text = read_text(path);
  const auto before = text.substr(0, text.find(R"(<link id="node0-nic0-ib")"));
  EXPECT_EQ(r.err, fmt::format("pipegrid: error: {}:{}: link node0-nic0-ib: bandwidth must be positive, got 0GBps\n",
                               path, std::count(before.begin(), before.end(), '\n') + 1));
}

TEST(PlatformCli, InfoOfAMissingFile) {
  const auto r = run_pipegrid("platform info /no/such.xml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: /no/such.xml: cannot open the file\n");
}

}  // namespace
}  // namespace pipegrid::platform
