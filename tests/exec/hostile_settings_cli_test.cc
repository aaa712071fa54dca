// Platform files that SimGrid 3.32 would run into a hang, a crash, a false deadlock or a silent
// nonsense, run as a user runs them: each ends in its documented exit code and one line. The platform
// is profiles_cli_test.cc's: gpu0 and gpu1 (1 Tflop/s) joined by one link "wire" of 1 GB/s, the job
// 1F1B, p = 2, m = 2, F = 1 s, B = 2 s, 1e8 bytes per message (0.1 s on the wire). Unperturbed:
//   gpu0: F0 [0, 1], sends F0 [1, 1.1], F1 [1, 2], sends F1 [2, 2.1]
//   gpu1: F0 [1.1, 2.1], B0 [2.1, 4.1], sends B0 [4.1, 4.2], F1 [4.1, 5.1], B1 [5.1, 7.1], sends B1 [7.1, 7.2]
//   gpu0: B0 [4.2, 6.2], B1 [7.2, 9.2]: makespan 9.2 s.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

constexpr const char* kTwoGpus = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="network/model" value="CM02"/>
    <prop id="network/crosstraffic" value="0"/>CONFIG
  </config>
  <zone id="pair" routing="Full">
    <host id="gpu0" speed="1Tf"><prop id="role" value="gpu"/><prop id="node" value="0"/><prop id="gpu" value="0"/><prop id="memory" value="80000000000"/></host>
    <host id="gpu1" speed="1Tf" HOST1><prop id="role" value="gpu"/><prop id="node" value="1"/><prop id="gpu" value="0"/><prop id="memory" value="80000000000"/></host>
    <link id="wire" bandwidth="1GBps" latency="LATENCY" LINK/>
    <route src="gpu0" dst="gpu1"><link_ctn id="wire"CTN/></route>
  </zone>
</platform>
)";

const std::string kJob = "--schedule 1f1b --pp 2 --microbatches 2 --time-f 1 --time-b 2 --p2p-bytes 1e8";

struct Edits {
  std::string config = {};    // more <config> props
  std::string host1 = {};     // attributes of gpu1
  std::string link = {};      // attributes of wire
  std::string latency = "0";  // of wire
  std::string ctn = {};       // attributes of wire's <link_ctn>
  std::map<std::string, std::string> files = {};  // profiles beside the platform
};

void fill(std::string& xml, const std::string& slot, const std::string& text) { xml.replace(xml.find(slot), slot.size(), text); }

// A fresh folder holding the edited platform (platform.xml) and its profiles.
std::string platform_dir(const std::string& name, const Edits& edits) {
  const std::string dir = test_support::fresh_dir("hostile-" + name);
  std::string xml = kTwoGpus;
  fill(xml, "CONFIG", edits.config);
  fill(xml, "HOST1", edits.host1);
  fill(xml, "LINK", edits.link);
  fill(xml, "LATENCY", edits.latency);
  fill(xml, "CTN", edits.ctn);
  std::ofstream(dir + "/platform.xml") << xml;
  for (const auto& [file, text] : edits.files) std::ofstream(dir + "/" + file) << text;
  return dir;
}

struct Simulated {
  std::string dir;
  std::string platform;
  test_support::CommandResult result;
};

// `simulate` of the job on the edited platform, its outputs in DIR/out.
Simulated simulate(const std::string& name, const Edits& edits) {
  const std::string dir = platform_dir(name, edits);
  const std::string platform = dir + "/platform.xml";
  return {dir, platform, run_pipegrid("simulate --platform " + platform + " " + kJob + " --out " + dir + "/out")};
}

// Exit 2 and the one line: the platform file, then `rule` (which starts with its ":LINE" if it has one).
void expect_refused(const std::string& name, const Edits& edits, const std::string& rule) {
  const Simulated run = simulate(name, edits);
  EXPECT_EQ(run.result.exit_code, 2) << name << ": " << run.result.err;
  EXPECT_EQ(run.result.err, "pipegrid: error: " + run.platform + rule + "\n") << name;
}

double makespan(const std::string& out) {
  return nlohmann::json::parse(read_file(out + "/summary.json"))["makespan"].get<double>();
}

TEST(HostileConfig, SettingsSimGridWouldHangAbortOrMisreadAreRefusedBeforeItStarts) {
  // Before: 0 and -1 hung the run, bandwidth-factor 0 was exit 70, latency-factor -1 ran without the
  // link's latency, concurrency-limit 0 was reported as a deadlock (exit 3).
  expect_refused("surf-precision", {.config = R"(<prop id="surf/precision" value="0"/>)"},
                 ":6: <config> surf/precision = 0: must be positive and at most 0.001 s (at 0 or below the run never "
                 "ends; a coarser clock merges events: at 10 s a 9.2 s run takes 40.4 s)");
  expect_refused("surf-precision-negative", {.config = R"(<prop id="surf/precision" value="-1"/>)"},
                 ":6: <config> surf/precision = -1: must be positive and at most 0.001 s (at 0 or below the run never "
                 "ends; a coarser clock merges events: at 10 s a 9.2 s run takes 40.4 s)");
  expect_refused("bandwidth-factor", {.config = R"(<prop id="network/bandwidth-factor" value="0"/>)"},
                 ":6: <config> network/bandwidth-factor = 0: must be positive (it multiplies every link's bandwidth; "
                 "SimGrid aborts on 0)");
  expect_refused("latency-factor", {.config = R"(<prop id="network/latency-factor" value="-1"/>)", .latency = "1ms"},
                 ":6: <config> network/latency-factor = -1: must not be negative (it multiplies every latency; SimGrid "
                 "drops a negative latency without a word)");
  expect_refused("concurrency-limit", {.config = R"(<prop id="maxmin/concurrency-limit" value="0"/>)"},
                 ":6: <config> maxmin/concurrency-limit = 0: must be -1 (no limit) or at least 1: at 0 no flow or "
                 "computation can run, a false deadlock");
  // -1 is SimGrid's "no limit": the run is the unperturbed one.
  const Simulated unlimited = simulate("no-concurrency-limit", {.config = R"(<prop id="maxmin/concurrency-limit" value="-1"/>)"});
  ASSERT_EQ(unlimited.result.exit_code, 0) << unlimited.result.err;
  EXPECT_NEAR(makespan(unlimited.dir + "/out"), 9.2, 1e-9);
}

TEST(HostileConfig, AFactorIsBoundedAsTheBandwidthItScales) {
  // 1e-300 of wire's 1 GB/s: a message would take 1e8 / 1e-291 = 1e299 s (it ran to a makespan of
  // that size); the same bound refuses a link declared that slow.
  const Simulated run = simulate("tiny-factor", {.config = R"(<prop id="network/bandwidth-factor" value="1e-300"/>)"});
  EXPECT_EQ(run.result.exit_code, 2);
  EXPECT_EQ(run.result.err, "pipegrid: error: a transfer of 1e+08 bytes would take 1e+299 s over link wire (1e+09 B/s, "
                            "network/bandwidth-factor 1e-300); pipegrid refuses transfers longer than 1e+12 s\n");
}

TEST(HostileProfiles, AProfileIsBoundedAsTheValueItReplaces) {
  // wire at 1e-291 B/s from t = 1 s ran to a makespan of 4e299 s.
  expect_refused("tiny-bandwidth", {.link = R"(bandwidth_file="bw.txt")", .files = {{"bw.txt", "0 1e9\n1 1e-291\n"}}},
                 ": link wire: bandwidth_file bw.txt: its least bandwidth, 1e-291 B/s, would take 1e+299 s for a "
                 "transfer of 1e+08 bytes; pipegrid refuses transfers longer than 1e+12 s");
  // gpu1 at 1e-300 of its speed: an op of F + B = 3 s at 1 Tflop/s, 3e12 FLOPs, would take 3e300 s.
  expect_refused("tiny-speed", {.host1 = R"(speed_file="speed.txt")", .files = {{"speed.txt", "0 1\n2 1e-300\n"}}},
                 ": host gpu1: speed_file speed.txt: its least speed factor, 1e-300, would take 3e+300 s for an op of "
                 "up to 3e+12 FLOPs (pp rank 1); pipegrid refuses ops longer than 1e+12 s");
  // Within the bounds a profile runs: wire at half its bandwidth from 0, each message 0.2 s: gpu1's
  // F0 [1.2, 2.2], B0 [2.2, 4.2], F1 [4.2, 5.2], B1 [5.2, 7.2], sends B1 [7.2, 7.4]; gpu0's B1 [7.4, 9.4].
  const Simulated half = simulate("half-bandwidth", {.link = R"(bandwidth_file="bw.txt")", .files = {{"bw.txt", "0 5e8\n"}}});
  ASSERT_EQ(half.result.exit_code, 0) << half.result.err;
  EXPECT_NEAR(makespan(half.dir + "/out"), 9.4, 1e-9);
}

TEST(HostileProfiles, ALatencyProfileIsRefusedRatherThanStallAFlow) {
  // wire's 1 ms latency dropping to 0 at t = 1.0005 s, inside F0's latency [1, 1.001], froze that
  // message: "deadlock at 2 s" (exit 3). SimGrid 3.32 cannot follow a latency change under a flow.
  expect_refused("latency-profile", {.link = R"(latency_file="lat.txt")", .latency = "1ms",
                                     .files = {{"lat.txt", "0 0.001\n1.0005 0\n"}}},
                 ":11: link wire: latency_file lat.txt: SimGrid 3.32 cannot change a latency under a flow that crosses "
                 "the link (the flow stalls: a false deadlock); pipegrid refuses latency profiles: give the link the "
                 "latency it should have");
}

TEST(HostileFailures, AGpuOffFromTheStartFailsTheJobAtZero) {
  // Before: exit 70, "Cannot start actor on failed host".
  const Simulated run = simulate("gpu-off", {.host1 = R"(state_file="state.txt")", .files = {{"state.txt", "0 0\n"}}});
  EXPECT_EQ(run.result.exit_code, 4) << run.result.err;
  EXPECT_EQ(run.result.err, "platform failure: host gpu1 went down at t=0 s; cut: gpu1 waiting at F s1 m0 (step 0); "
                            "wrote " + run.dir + "/out/failure.json\n");
  const nlohmann::json failure = nlohmann::json::parse(read_file(run.dir + "/out/failure.json"));
  EXPECT_EQ(failure["resource"], "gpu1");
  EXPECT_EQ(failure["down_since"].get<double>(), 0);
  EXPECT_EQ(failure["time"].get<double>(), 0);
}

TEST(HostileFailures, ALinkOffFromTheStartWentDownAtZero) {
  // The job fails when F0's message needs wire, at 1 s; wire went down at 0 (it was reported as 1).
  const Simulated run = simulate("link-off", {.link = R"(state_file="state.txt")", .files = {{"state.txt", "0 0\n"}}});
  EXPECT_EQ(run.result.exit_code, 4) << run.result.err;
  EXPECT_EQ(run.result.err, "platform failure: link wire went down at t=0 s, the job failed at t=1 s; cut: p2p forward "
                            "s0 m0 gpu0->gpu1 (gpu0 computing F s0 m1 (step 0); gpu1 waiting at F s1 m0 (step 0)); "
                            "wrote " + run.dir + "/out/failure.json\n");
  const nlohmann::json failure = nlohmann::json::parse(read_file(run.dir + "/out/failure.json"));
  EXPECT_EQ(failure["down_since"].get<double>(), 0);
  EXPECT_EQ(failure["time"].get<double>(), 1);
}

TEST(HostilePerturb, ASplitDuplexLinkBothDegradedAndFailedRuns) {
  // perturb used to give wire's two directions one bandwidth file, which simulate refused. Wire at
  // half its bandwidth from 1 s and off over [3, 4]: each message takes 0.2 s and none is on the wire
  // during the outage: gpu1's F0 [1.2, 2.2], B0 [2.2, 4.2], sends B0 [4.2, 4.4] (wire back at 4),
  // F1 [4.2, 5.2], B1 [5.2, 7.2], sends B1 [7.2, 7.4]; gpu0's B0 [4.4, 6.4], B1 [7.4, 9.4].
  const std::string dir =
      platform_dir("perturb-both", {.link = R"(sharing_policy="SPLITDUPLEX")", .ctn = R"( direction="UP")"});
  auto r = run_pipegrid("platform perturb " + dir + "/platform.xml --degrade-link wire=0.5@1 --fail wire@3..4 --out " +
                        dir + "/perturbed");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"perturb-wire_UP-bandwidth.txt", "perturb-wire_DOWN-bandwidth.txt",
                           "perturb-wire_UP-state.txt", "perturb-wire_DOWN-state.txt"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/perturbed/" + file)) << file;
  EXPECT_FALSE(std::filesystem::exists(dir + "/perturbed/perturb-wire-bandwidth.txt"));  // named by no link
  r = run_pipegrid("simulate --platform " + dir + "/perturbed/platform.xml " + kJob + " --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/out"), 9.4, 1e-9);
}

}  // namespace
}  // namespace pipegrid
