// Time-varying profiles as a user meets them: a host or link going down ends the run with exit 4, one
// line and failure.json; --on-failure wait resends a cut flow once its link is back; `platform perturb`
// writes the profiles that produce the same effects. Hand computations on a two-GPU platform: gpu0 and
// gpu1 (1 Tflop/s) joined by one SHARED link "wire" of 1 GB/s and no latency. The job is 1F1B, p = 2,
// m = 2, F = 1 s, B = 2 s, 1e8 bytes per message (0.1 s on the wire). Unperturbed:
//   gpu0: F0 [0, 1], sends F0 [1, 1.1], F1 [1, 2], sends F1 [2, 2.1]
//   gpu1: F0 [1.1, 2.1], B0 [2.1, 4.1], sends B0 [4.1, 4.2], F1 [4.1, 5.1], B1 [5.1, 7.1], sends B1 [7.1, 7.2]
//   gpu0: B0 [4.2, 6.2], B1 [7.2, 9.2]: makespan 9.2 s.
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <unistd.h>
#include <nlohmann/json.hpp>

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
    <prop id="network/crosstraffic" value="0"/>
    <prop id="network/TCP-gamma" value="0"/>
  </config>
  <zone id="pair" routing="Full">
    <host id="gpu0" speed="1Tf"><prop id="role" value="gpu"/><prop id="node" value="0"/><prop id="gpu" value="0"/><prop id="memory" value="80000000000"/></host>
    <host id="gpu1" speed="1Tf" HOST1><prop id="role" value="gpu"/><prop id="node" value="1"/><prop id="gpu" value="0"/><prop id="memory" value="80000000000"/></host>
    <link id="wire" bandwidth="1GBps" latency="0" LINK/>
    <route src="gpu0" dst="gpu1"><link_ctn id="wire"/></route>
  </zone>
</platform>
)";

const std::string kJob = "--schedule 1f1b --pp 2 --microbatches 2 --time-f 1 --time-b 2 --p2p-bytes 1e8";

// A fresh folder holding the platform, its gpu1 and wire attributes filled in, and the given profiles.
std::string platform_dir(const std::string& name, const std::string& host1, const std::string& link,
                         const std::map<std::string, std::string>& profiles = {}) {
  const std::string dir = ::testing::TempDir() + "profiles-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string xml = kTwoGpus;
  xml.replace(xml.find("HOST1"), 5, host1);
  xml.replace(xml.find("LINK"), 4, link);
  std::ofstream(dir + "/platform.xml") << xml;
  for (const auto& [file, text] : profiles) std::ofstream(dir + "/" + file) << text;
  return dir;
}

double makespan(const std::string& out) {
  return nlohmann::json::parse(read_file(out + "/summary.json"))["makespan"].get<double>();
}

TEST(LinkStateProfile, ALinkGoingDownFailsTheJobWithOneLineAndFailureJson) {
  // wire off from 1.5 s for good. F0's message is through at 1.1; F1's starts at 2 over the dead link
  // and fails at once: the job fails at t = 2, gpu1 computing F0 [1.1, 2.1], gpu0 past its last
  // forward, waiting for B0.
  const std::string dir = platform_dir("link-down", "", "state_file=\"wire-state.txt\"", {{"wire-state.txt", "0 1\n1.5 0\n"}});
  const std::string platform = (dir + "/platform.xml");
  const auto r = run_pipegrid("simulate --platform " + platform + " " + kJob + " --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err, "platform failure: link wire went down at t=1.5 s, the job failed at t=2 s; cut: p2p forward s0 m1 "
                   "gpu0->gpu1 (gpu0 waiting at B s0 m0 (step 0); gpu1 computing F s1 m0 (step 0)); wrote " +
                       dir + "/out/failure.json\n");
  const nlohmann::json failure = nlohmann::json::parse(read_file(dir + "/out/failure.json"));
  EXPECT_EQ(failure["resource"], "wire");
  EXPECT_EQ(failure["kind"], "link");
  EXPECT_DOUBLE_EQ(failure["down_since"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(failure["time"].get<double>(), 2);
  EXPECT_EQ(failure["cut"].size(), 1u);
  EXPECT_EQ(failure["gpus"][1]["state"], "computing F s1 m0 (step 0)");
  EXPECT_EQ(failure["gpus"][0]["op_position"], 2);  // F0, F1 done: at B0
  // What ran before the failure is kept; the step never ended, so there is no summary.
  const std::string trace = read_file(dir + "/out/trace.csv");
  EXPECT_NE(trace.find("0,gpu0,0,0,0,0,compute,F,0,1,,0,1,2,0,"), std::string::npos) << trace;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/summary.json"));
}

TEST(LinkStateProfile, WaitResendsTheCutFlowsOnceTheLinkIsBack) {
  // wire off over [1.5, 4.5]. F1's message (from 2) and B0's (from 4.1) both fail and are resent at
  // 4.5, sharing the wire: 2e8 bytes at 1 GB/s, both through at 4.7. gpu1: F1 [4.7, 5.7], B1
  // [5.7, 7.7], sends B1 [7.7, 7.8]; gpu0: B0 [4.7, 6.7], B1 [7.8, 9.8]. Makespan 9.8 s: 0.6 s more.
  const std::string dir =
      platform_dir("link-outage", "", "state_file=\"wire-state.txt\"", {{"wire-state.txt", "0 1\n1.5 0\n4.5 1\n"}});
  const std::string platform = (dir + "/platform.xml");
  const auto r = run_pipegrid("simulate --platform " + platform + " " + kJob + " --on-failure wait --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/out"), 9.8, 1e-9);
  // Failing instead, the same outage ends the job at F1's send.
  const auto failed = run_pipegrid("simulate --platform " + platform + " " + kJob);
  EXPECT_EQ(failed.exit_code, 4);
}

TEST(LinkStateProfile, AFlowCutOnTheWireIsResentWhole) {
  // wire off over [1.05, 1.5], in the middle of F0's message [1, 1.1]. Failing: the job ends at 1.05
  // with that message cut. Waiting: it is resent whole at 1.5 and through at 1.6; gpu1: F0 [1.6, 2.6],
  // B0 [2.6, 4.6], sends B0 [4.6, 4.7], F1 [4.6, 5.6] (its message went through at 2.1), B1 [5.6, 7.6],
  // sends B1 [7.6, 7.7]; gpu0: B0 [4.7, 6.7], B1 [7.7, 9.7]. Makespan 9.7 s.
  const std::string dir =
      platform_dir("link-cut", "", "state_file=\"wire-state.txt\"", {{"wire-state.txt", "0 1\n1.05 0\n1.5 1\n"}});
  const std::string platform = dir + "/platform.xml";
  const auto failed = run_pipegrid("simulate --platform " + platform + " " + kJob);
  EXPECT_EQ(failed.exit_code, 4);
  EXPECT_EQ(failed.err, "platform failure: link wire went down at t=1.05 s; cut: p2p forward s0 m0 gpu0->gpu1 (gpu0 "
                        "computing F s0 m1 (step 0); gpu1 waiting at F s1 m0 (step 0))\n");
  const auto r = run_pipegrid("simulate --platform " + platform + " " + kJob + " --on-failure wait --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/out"), 9.7, 1e-9);
}

TEST(LinkStateProfile, AnExperimentFileChoosesToWait) {
  // WaitResendsTheCutFlowsOnceTheLinkIsBack's outage and job, --on-failure as [sim] on_failure.
  const std::string dir =
      platform_dir("link-outage-toml", "", "state_file=\"wire-state.txt\"", {{"wire-state.txt", "0 1\n1.5 0\n4.5 1\n"}});
  std::ofstream(dir + "/experiment.toml") << "[platform]\nfile = \"" << dir << "/platform.xml\"\n[parallel]\npp = 2\n"
                                          << "microbatches = 2\n[sim]\nschedule = \"1f1b\"\non_failure = \"wait\"\n"
                                          << "time_f = 1\ntime_b = 2\np2p_bytes = 1e8\n";
  const auto r = run_pipegrid("run " + dir + "/experiment.toml --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/out"), 9.8, 1e-9);
}

TEST(LinkStateProfile, WaitForALinkThatNeverComesBackFailsRatherThanHangs) {
  const std::string dir = platform_dir("link-dead", "", "state_file=\"wire-state.txt\"", {{"wire-state.txt", "0 1\n1.5 0\n"}});
  const auto r = run_pipegrid("simulate --platform " + (dir + "/platform.xml") + " " + kJob + " --on-failure wait");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("(it never comes back on: --on-failure wait cannot wait)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(HostStateProfile, AGpuGoingDownFailsTheJob) {
  // gpu1 off at 3 s, in the middle of its B0 [2.1, 4.1].
  const std::string dir = platform_dir("host-down", "state_file=\"gpu1-state.txt\"", "", {{"gpu1-state.txt", "0 1\n3 0\n"}});
  const std::string platform = (dir + "/platform.xml");
  const auto r = run_pipegrid("simulate --platform " + platform + " " + kJob + " --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err, "platform failure: host gpu1 went down at t=3 s; cut: gpu1 computing B s1 m0 (step 0); wrote " + dir +
                       "/out/failure.json\n");
  const nlohmann::json failure = nlohmann::json::parse(read_file(dir + "/out/failure.json"));
  EXPECT_EQ(failure["kind"], "host");
  EXPECT_DOUBLE_EQ(failure["time"].get<double>(), 3);
  // A GPU whose host went down cannot wait for it: SimGrid kills the actors of a host turned off.
  const auto wait = run_pipegrid("simulate --platform " + platform + " " + kJob + " --on-failure wait");
  EXPECT_EQ(wait.exit_code, 2);
  EXPECT_EQ(wait.err, "pipegrid: error: --on-failure wait: host gpu1 has a state profile, and a host going down kills "
                      "its actors in SimGrid, so its GPU cannot wait; use --on-failure fail\n");
}

TEST(HostStateProfile, ATraceConnectTurnsAGpuOffAsAStateFileDoes) {
  std::string dir = platform_dir("host-avail", "", "");
  std::string xml = read_file(dir + "/platform.xml");
  xml.replace(xml.find("  </zone>\n"), 10,
              "  </zone>\n  <trace id=\"down\" periodicity=\"-1\">0 1\n3 0\n</trace>\n"
              "  <trace_connect kind=\"HOST_AVAIL\" trace=\"down\" element=\"gpu1\"/>\n");
  std::ofstream(dir + "/platform.xml") << xml;
  const auto r = run_pipegrid("simulate --platform " + dir + "/platform.xml " + kJob);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "platform failure: host gpu1 went down at t=3 s; cut: gpu1 computing B s1 m0 (step 0)\n");
}

TEST(SpeedProfile, ATraceConnectSlowsTheGpuAsASpeedFileDoes) {
  // gpu1 at half speed from 3 s (explicit times without messages: the p2p is free). Unperturbed
  // 9 s; slowed, B0 [2, 5] (1 s of work left at 3 takes 2), F1 [5, 7], B1 [7, 11], gpu0's B1
  // [11, 13]: 13 s (tests/exec/profiles_test.cc computes the same by speed_file).
  std::string dir = platform_dir("trace-connect", "", "");
  std::string xml = read_file(dir + "/platform.xml");
  xml.replace(xml.find("  </zone>\n"), 10,
              "  </zone>\n  <trace id=\"slow\" periodicity=\"-1\">0 1\n3 0.5\n</trace>\n"
              "  <trace_connect kind=\"SPEED\" trace=\"slow\" element=\"gpu1\"/>\n");
  std::ofstream(dir + "/platform.xml") << xml;
  const auto r = run_pipegrid("simulate --platform " + (dir + "/platform.xml") +
                              " --schedule 1f1b --pp 2 --microbatches 2 --time-f 1 --time-b 2 --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/out"), 13, 1e-9);
}

TEST(PlatformPerturb, WritesProfilesThatRunWithTheirEffect) {
  const std::string dir = platform_dir("perturb", "", "");
  const std::string platform = (dir + "/platform.xml");
  // The slowed GPU: 13 s as computed above (no message bytes).
  auto r = run_pipegrid("platform perturb " + platform + " --slow-gpu gpu1=0.5@3 --out " + dir + "/slow");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "GPU gpu1 at 0.5 of its 1e+12 flop/s from t=3 s\nwrote " + dir +
                       "/slow/platform.xml and 1 profile file beside it\n");
  EXPECT_EQ(read_file(dir + "/slow/perturb-gpu1-speed.txt"),
            "# pipegrid platform perturb --slow-gpu: 0.5 of its speed from t=3 s\n0 1\n3 0.5\n");
  // One XML declaration, the file's first line, whether the original had one or not: two make the file
  // ill-formed for every XML tool but SimGrid. And perturbing the perturbed file keeps it one.
  const std::string xml = read_file(dir + "/slow/platform.xml");
  EXPECT_TRUE(xml.starts_with("<?xml ")) << xml.substr(0, 80);
  EXPECT_EQ(xml.find("<?xml", 1), std::string::npos) << xml.substr(0, 200);
  r = run_pipegrid("platform perturb " + dir + "/slow/platform.xml --slow-gpu gpu0=0.5@3 --out " + dir + "/slow2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir + "/slow2/platform.xml").find("<?xml", 1), std::string::npos);
  const auto info = run_pipegrid("platform info " + dir + "/slow/platform.xml");
  EXPECT_NE(info.out.find("\nhost speed profiles: gpu1\nprofile files: 1\n"), std::string::npos) << info.out;
  r = run_pipegrid("simulate --platform " + dir + "/slow/platform.xml --schedule 1f1b --pp 2 --microbatches 2 "
                   "--time-f 1 --time-b 2 --out " + dir + "/slow/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/slow/out"), 13, 1e-9);
  // The outage of WaitResendsTheCutFlowsOnceTheLinkIsBack, written by perturb: 9.8 s.
  r = run_pipegrid("platform perturb " + platform + " --fail wire@1.5..4.5 --out " + dir + "/outage");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_pipegrid("simulate --platform " + dir + "/outage/platform.xml " + kJob + " --on-failure wait --out " + dir +
                   "/outage/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/outage/out"), 9.8, 1e-9);
  // The degraded link: at half its bandwidth from 0, each 1e8-byte message takes 0.2 s: gpu1's F0
  // [1.2, 2.2], B0 [2.2, 4.2], F1 [4.2, 5.2] (F1's message in [2, 2.2]), B1 [5.2, 7.2], sends B1
  // [7.2, 7.4]; gpu0's B1 [7.4, 9.4].
  r = run_pipegrid("platform perturb " + platform + " --degrade-link wire=0.5@0 --out " + dir + "/half");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_pipegrid("simulate --platform " + dir + "/half/platform.xml " + kJob + " --out " + dir + "/half/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(dir + "/half/out"), 9.4, 1e-9);
}

TEST(PlatformPerturb, FailsASplitDuplexLinkAsItsTwoDirections) {
  // star-4gpu.xml's ports are SPLITDUPLEX, whose state profile SimGrid 3.32 cannot apply: perturb
  // writes gpu1-port as the SHARED links gpu1-port_UP and gpu1-port_DOWN. 1F1B over gpu0 and gpu1
  // (2 ms of latency between them): F0's message at 1 s crosses gpu1-port_DOWN, which is off from
  // 0.5 s: the job fails at 1 s.
  const std::string dir = platform_dir("perturb-duplex", "", "");
  auto r = run_pipegrid(std::string("platform perturb ") + PIPEGRID_TEST_DATA +
                        "/platforms/star-4gpu.xml --fail gpu1-port@0.5 --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_pipegrid("simulate --platform " + dir + "/out/platform.xml --schedule 1f1b --pp 2 --microbatches 2");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err.rfind("platform failure: link gpu1-port_DOWN went down at t=0.5 s, the job failed at t=1 s; cut: p2p "
                        "forward s0 m0 gpu0->gpu1", 0),
            0u)
      << r.err;
}

TEST(PlatformPerturb, RefusesBadInputInOneLine) {
  const std::string platform = platform_dir("perturb-bad", "", "") + "/platform.xml";
  const std::pair<std::string, std::string> cases[] = {
      {"--slow-gpu nope=0.5@1", "--slow-gpu nope: no GPU host of that name in " + platform},
      {"--slow-gpu gpu1=0@1", "--slow-gpu gpu1=0@1: the factor must be a number in (0, 1] (expected NAME=FACTOR@T, T in seconds)"},
      {"--slow-gpu gpu1=1.5@1", "--slow-gpu gpu1=1.5@1: the factor must be a number in (0, 1] (expected NAME=FACTOR@T, T in seconds)"},
      {"--degrade-link wire=0.5@-1",
       "--degrade-link wire=0.5@-1: T must be a number of seconds, not negative (expected NAME=FACTOR@T, T in seconds)"},
      {"--fail wire@2..1",
       "--fail wire@2..1: T2 must be a number of seconds after T (expected NAME@T or NAME@T..T2, T in seconds)"},
      {"--fail nowhere@1", "--fail nowhere: no host or link of that name in " + platform},
      {"--fail gpu1@1 --fail gpu1@2", "--fail gpu1: given twice"},
      {"", "platform perturb: give at least one --slow-gpu, --degrade-link or --fail"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_pipegrid("platform perturb " + platform + " " + args + " --out " + ::testing::TempDir() + "unused");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err, "pipegrid: error: " + message + "\n") << args;
  }
}

}  // namespace
}  // namespace pipegrid
