// --log-level as a user sees it: each layer's named events at debug (and each flow, host, link and
// rank's program at trace), SimGrid's own log at the matching level, nothing at off, warnings in the
// words they always had — and, at every level, the same stdout (JSON stays JSON) and the same results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "command_runner.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
// 1F1B on two GPUs of the star, 4 micro-batches, 100 MB per boundary: 4 activations sent down and 4
// gradients back, 8 p2p flows; Megatron's plan batches them in 10 comm batches (16 actions).
const std::string kRun = "simulate --platform " + kStar + " --schedule 1f1b --pp 2 --microbatches 4 --p2p-bytes 1e8";
const char* const kLevels[] = {"off", "error", "warn", "info", "debug", "trace"};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool every_line_is_a_log_line(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("[pipegrid:")) return false;
  return true;
}

TEST(LoggingCli, DebugNamesEachLayersEvents) {
  const auto r = run_pipegrid(kRun + " --format json --log-level debug");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& e = r.err;
  EXPECT_NE(e.find("[pipegrid:run] [debug] layout: 2 GPUs = tp 1 × pp 2 × dp 1 on 1 node (tp-dp-pp), schedule 1f1b, "
                   "m = 4, v = 1, comm plan megatron, p2p async\n"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("[pipegrid:platform] [debug] platform " + kStar +
                   ": 4 hosts (4 GPUs on 1 node, 0 other), 1 router, 4 links declared, 4 routes"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("[pipegrid:schedules] [debug] schedule 1f1b: 2 ranks, 4 micro-batches, 1 chunk, 16 compute ops; "
                   "checked: no deadlock\n"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("[pipegrid:schedules] [debug] schedule 1f1b: 2 ranks, 16 compute ops, 16 comm actions in 10 batches "
                   "(lowered by the megatron plan)\n"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("[pipegrid:exec] [debug] actors: 2 started for 2 GPUs (0 lockstep TP groups"), std::string::npos)
      << e;
  EXPECT_NE(e.find("[pipegrid:network] [debug] flows: 8 started, 8 finished, 0 cut by the platform, in 8 SimGrid "
                   "activities"),
            std::string::npos)
      << e;
  // The simulated end is the run's makespan (the last GPU ends the step).
  std::smatch end;
  ASSERT_TRUE(std::regex_search(e, end, std::regex(R"(\[pipegrid:exec\] \[debug\] simulated end: t = ([0-9.e+-]+) s)")))
      << e;
  EXPECT_NEAR(std::stod(end[1]), nlohmann::json::parse(r.out)["makespan"].get<double>(), 1e-9);
  // Trace is for one flow at a time: none at debug.
  EXPECT_EQ(e.find("[pipegrid:network] [trace]"), std::string::npos) << e;
  EXPECT_TRUE(every_line_is_a_log_line(e)) << e;
}

TEST(LoggingCli, TraceNamesEachFlowHostLinkAndProgram) {
  const auto r = run_pipegrid(kRun + " --log-level trace");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& e = r.err;
  EXPECT_EQ(count(e, "[pipegrid:network] [trace] flow "), 16u) << e;  // 8 flows, each started and finished
  EXPECT_EQ(count(e, " started at "), 8u);
  EXPECT_EQ(count(e, " finished at "), 8u);
  EXPECT_NE(e.find("[pipegrid:network] [trace] flow 0 started at 1 s: p2p gpu0 -> gpu1, 1e+08 bytes\n"),
            std::string::npos)
      << e;
  EXPECT_EQ(count(e, "[pipegrid:platform] [trace] host gpu"), 4u) << e;
  EXPECT_EQ(count(e, "[pipegrid:platform] [trace] link gpu"), 4u) << e;
  EXPECT_NE(e.find("[pipegrid:schedules] [trace] rank 0: 0F0,[0SEND_F0],0F1,[0SEND_F1;0RECV_B0],0B0"),
            std::string::npos)
      << e;
  // SimGrid's own debug lines, through the simgrid logger.
  EXPECT_NE(e.find("[pipegrid:simgrid] [trace] SimGrid "), std::string::npos) << e;
  EXPECT_TRUE(every_line_is_a_log_line(e)) << e;
}

TEST(LoggingCli, OffSaysNothingAndWarnIsTheDefault) {
  // two-zones.xml sets no network model: pipegrid's notice names it at warn, as it always has.
  const std::string two_zones =
      "simulate --platform " PIPEGRID_TEST_DATA "/platforms/two-zones.xml --schedule 1f1b --pp 2 --microbatches 2";
  const auto by_default = run_pipegrid(two_zones);
  ASSERT_EQ(by_default.exit_code, 0) << by_default.err;
  EXPECT_TRUE(by_default.err.starts_with("pipegrid: notice: ")) << by_default.err;
  EXPECT_EQ(run_pipegrid(two_zones + " --log-level warn").err, by_default.err);
  for (const char* quiet : {"off", "error"}) {
    const auto r = run_pipegrid(two_zones + " --log-level " + quiet);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "") << quiet;
    EXPECT_EQ(r.out, by_default.out) << quiet;
  }
  // A warning keeps its text at warn and is gone at error.
  const std::string one_node =
      "simulate --preset dgx-a100 --nodes 1 --ib-bw 12.5GBps --schedule 1f1b --pp 2 "
      "--microbatches 2 --tp 4";
  const auto warned = run_pipegrid(one_node);
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_EQ(warned.err, "pipegrid: warning: --ib-bw 12.5GBps: no effect: one node: its GPUs talk over NVLink only\n");
  EXPECT_EQ(run_pipegrid(one_node + " --log-level error").err, "");
}

TEST(LoggingCli, StdoutIsTheSameAtEveryLevel) {
  const std::string table = run_pipegrid(kRun).out;
  ASSERT_FALSE(table.empty());
  for (const char* level : kLevels) {
    const auto r = run_pipegrid(kRun + " --log-level " + level);
    EXPECT_EQ(r.exit_code, 0) << level;
    EXPECT_EQ(r.out, table) << level;
    const auto json = run_pipegrid(kRun + " --format json --log-level " + level);
    EXPECT_EQ(json.exit_code, 0) << level;
    EXPECT_TRUE(nlohmann::json::accept(json.out)) << level << ":\n" << json.out;
    const auto schedule = run_pipegrid("schedule --schedule zb-h1 --pp 4 --microbatches 8 --format json --log-level " +
                                       std::string(level));
    EXPECT_TRUE(nlohmann::json::accept(schedule.out)) << level << ":\n" << schedule.out;
  }
}

TEST(LoggingCli, SimGridsLogFollowsTheLevel) {
  // SimGrid's "Configuration change" lines are its info; its deadlock dump (ker_engine) shows only at
  // debug, where pipegrid's own report of the waits still follows it.
  const std::string deadlock = "simulate --platform " + kStar +
                               " --schedule 1f1b --pp 2 --microbatches 4 --p2p rendezvous --comm-plan blocking-calls";
  const auto warn = run_pipegrid(deadlock);
  ASSERT_EQ(warn.exit_code, 3);
  EXPECT_TRUE(warn.err.starts_with("deadlock at 4.002 s: ")) << warn.err;
  EXPECT_EQ(warn.err.find("SimGrid"), std::string::npos) << warn.err;
  const auto info = run_pipegrid(deadlock + " --log-level info");
  EXPECT_NE(
      info.err.find("[pipegrid:simgrid] [info] SimGrid xbt_cfg (t = 0.000000 s, maestro): Configuration change: "),
      std::string::npos)
      << info.err;
  EXPECT_EQ(info.err.find("Deadlock detected"), std::string::npos) << info.err;
  EXPECT_NE(info.err.find(warn.err), std::string::npos) << info.err;
  const auto debug = run_pipegrid(deadlock + " --log-level debug");
  EXPECT_EQ(debug.exit_code, 3);
  const std::size_t dump = debug.err.find(
      "[pipegrid:simgrid] [error] SimGrid ker_engine (t = 4.002000 s, maestro): "
      "Oops! Deadlock detected");
  EXPECT_NE(dump, std::string::npos) << debug.err;
  EXPECT_GT(debug.err.find(warn.err), dump) << debug.err;
}

TEST(LoggingCli, RunTakesTheLevelFromItsFileOrItsFlag) {
  const std::string dir = test_support::fresh_dir("logging-run");
  std::ofstream(dir + "/exp.toml") << "[platform]\nfile = \"" << kStar
                                   << "\"\n[parallel]\npp = 2\nmicrobatches = 4\n[sim]\nschedule = \"1f1b\"\n"
                                      "[output]\nlog_level = \"debug\"\n";
  const auto from_file = run_pipegrid("run " + dir + "/exp.toml");
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.err.find("[pipegrid:run] [debug] layout: "), std::string::npos) << from_file.err;
  const auto flag = run_pipegrid("run " + dir + "/exp.toml --log-level off");
  EXPECT_EQ(flag.exit_code, 0);
  EXPECT_EQ(flag.err, "");
  EXPECT_EQ(flag.out, from_file.out);
}

// A sweep of two configurations, one that runs and one that deadlocks, in DIR.
void deadlock_sweep(const std::string& dir) {
  fs::copy_file(kStar, dir + "/a.xml");
  std::ofstream(dir + "/sweep.toml") << "[base.platform]\nfile = \"a.xml\"\n[base.parallel]\npp = 2\nmicrobatches = 4\n"
                                        "[base.sim]\nschedule = \"1f1b\"\np2p = \"rendezvous\"\n"
                                        "[axes]\n\"sim.comm_plan\" = [\"megatron\", \"blocking-calls\"]\n";
}

TEST(LoggingCli, ASweepLogsEachRunAndPassesItsLevelOn) {
  const std::string quiet = test_support::fresh_dir("logging-sweep-warn");
  const std::string loud = test_support::fresh_dir("logging-sweep-debug");
  deadlock_sweep(quiet);
  deadlock_sweep(loud);
  const auto a = run_pipegrid("--help >/dev/null; cd " + quiet + " && " + PIPEGRID_BINARY +
                              " sweep sweep.toml --out out --jobs 1");
  const auto b = run_pipegrid("--help >/dev/null; cd " + loud + " && " + PIPEGRID_BINARY +
                              " sweep sweep.toml --out out --jobs 1 --log-level debug");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // The same rows: a run's message is its error, not a log line before it.
  const std::string results = read_file(quiet + "/out/results.csv");
  EXPECT_EQ(read_file(loud + "/out/results.csv"), results);
  EXPECT_NE(results.find(",deadlock,\"deadlock at 4.002 s: "), std::string::npos) << results;
  std::istringstream rows(results);
  std::string row;
  std::getline(rows, row);  // header
  int runs = 0;
  while (std::getline(rows, row)) {
    ++runs;
    const std::string id = row.substr(0, row.find(','));
    const std::string values =
        "sim.comm_plan=" + row.substr(id.size() + 1, row.find(',', id.size() + 1) - id.size() - 1);
    EXPECT_NE(b.err.find("[pipegrid:sweep] [debug] run " + id + " started: " + values), std::string::npos) << b.err;
    EXPECT_NE(b.err.find("[pipegrid:sweep] [debug] run " + id +
                         " finished: " + (row.find(",ok,") != std::string::npos ? "ok" : "deadlock")),
              std::string::npos)
        << b.err;
    // Each run logs at the sweep's level, into its own stderr.txt.
    EXPECT_NE(read_file(loud + "/out/runs/" + id + "/stderr.txt").find("[pipegrid:run] [debug] layout: "),
              std::string::npos);
    EXPECT_EQ(read_file(quiet + "/out/runs/" + id + "/stderr.txt").find("[pipegrid:"), std::string::npos);
  }
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(a.err.find("[pipegrid:"), std::string::npos) << a.err;
}

TEST(LoggingCli, APitfallsRunsGetTheLevel) {
  const std::string quiet = test_support::fresh_dir("logging-pitfall-warn");
  const std::string loud = test_support::fresh_dir("logging-pitfall-debug");
  const auto a = run_pipegrid("pitfalls 1f1b-rendezvous-sends --out " + quiet);
  const auto b = run_pipegrid("pitfalls 1f1b-rendezvous-sends --out " + loud + " --log-level debug");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // What pitfalls prints (each run's verdict and first line of stderr) is the same; the runs logged.
  std::string out = b.out;
  for (std::size_t at; (at = out.find(loud)) != std::string::npos;) out.replace(at, loud.size(), quiet);
  EXPECT_EQ(out, a.out);
  EXPECT_NE(read_file(loud + "/broken/stderr.txt").find("[pipegrid:schedules] [debug] schedule 1f1b: 4 ranks, "),
            std::string::npos);
  EXPECT_EQ(read_file(quiet + "/broken/stderr.txt").find("[pipegrid:"), std::string::npos);
}

}  // namespace
}  // namespace pipegrid
