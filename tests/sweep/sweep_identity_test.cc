// A sweep never serves a stale row: a configuration's result stands only while its options, the
// content of every file it reads and pipegrid's version are those it ran with. Editing a file reruns
// exactly the configurations that read it, and the sweep says how many and why; two configurations
// that are one experiment are refused; --force reruns everything; a hung run is killed at its timeout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

#include "command_runner.h"
#include "sim/sweep/runner.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-identity-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The sweep in DIR, run from DIR (its experiments name their files relative to it).
test_support::CommandResult sweep_in(const std::string& dir, const std::string& flags = "") {
  return run_pipegrid("--help >/dev/null; cd " + dir + " && " + PIPEGRID_BINARY + " sweep sweep.toml --out out" + flags);
}

struct Row {
  std::string id, status, makespan;
  std::vector<std::string> axes;
};

// results.csv's rows by their axis values joined with '/', axes in results.csv's order (sorted by key,
// as a TOML table keeps them).
std::map<std::string, Row> rows(const std::string& dir, std::size_t axes) {
  std::map<std::string, Row> by_values;
  std::istringstream in(read_file(dir + "/out/results.csv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    Row row{f[0], f[1 + axes], f.size() > 3 + axes ? f[3 + axes] : "", {f.begin() + 1, f.begin() + 1 + static_cast<long>(axes)}};
    std::string key;
    for (const std::string& a : row.axes) key += (key.empty() ? "" : "/") + a;
    by_values[key] = row;
  }
  return by_values;
}

std::size_t attempts(const std::string& dir, const std::string& id) {
  const std::string text = read_file(dir + "/out/runs/" + id + "/attempts");
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Two copies of the star platform and a sweep of four configurations over them.
std::string two_platform_sweep(const std::string& name) {
  const std::string dir = fresh_dir(name);
  fs::copy_file(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml", dir + "/a.xml");
  fs::copy_file(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml", dir + "/b.xml");
  std::ofstream(dir + "/sweep.toml") << "[base.parallel]\npp = 2\n[base.sim]\nschedule = \"1f1b\"\np2p_bytes = 1e8\n"
                                        "[base.output]\ntrace = \"off\"\n"
                                        "[axes]\n\"platform.file\" = [\"a.xml\", \"b.xml\"]\n"
                                        "\"parallel.microbatches\" = [4, 8]\n";
  return dir;
}

// 1F1B on two ranks with F = 1, B = 2 (the explicit defaults) and `latency` on every cross-rank
// dependency, timed by the contention-free engine.
double engine_makespan(const std::string& microbatches, double latency) {
  const auto r = run_pipegrid("schedule --schedule 1f1b --pp 2 --microbatches " + microbatches +
                              " --p2p-latency " + std::to_string(latency) + " --format json");
  const std::string key = "\"makespan\": ";
  return std::stod(r.out.substr(r.out.find(key) + key.size()));
}

std::string pipegrid_version() {
  std::string v = run_pipegrid("--version").out;  // "pipegrid 0.3.0\n"
  return v.substr(9, v.size() - 10);
}

TEST(SweepIdentity, EditingAFileRerunsExactlyTheConfigurationsThatReadIt) {
  const std::string dir = two_platform_sweep("edit");
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const auto before = rows(dir, 2);
  ASSERT_EQ(before.size(), 4u);

  // b.xml's GPU ports get twice the latency: its two configurations are stale, a.xml's are not.
  std::string b = read_file(dir + "/b.xml");
  for (std::size_t at; (at = b.find("latency=\"1ms\"")) != std::string::npos;) b.replace(at, 13, "latency=\"2ms\"");
  std::ofstream(dir + "/b.xml") << b;
  const auto again = sweep_in(dir);
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("sweep: reran 2 configurations with a result: b.xml changed (2)\n"), std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("4 configurations, 2 already done, 2 ran (2 ok)"), std::string::npos) << again.err;
  const auto after = rows(dir, 2);
  for (const auto& [values, row] : after) {
    const bool reads_b = values.ends_with("b.xml");
    EXPECT_EQ(attempts(dir, row.id), reads_b ? 2u : 1u) << values;
    // A transfer crosses two ports of 1 GB/s: 0.1 s for its 1e8 bytes plus 2 ms of latency, 4 ms in the
    // edited file. The contention-free engine, given that as its p2p latency, says what that costs; the
    // optimizer's check after the step, a tiny all-reduce of the two GPUs (2 hops of the route's
    // latency), costs 2 × 2 ms more.
    if (reads_b) {
      const std::string m = row.axes[0];
      EXPECT_NEAR(std::stod(row.makespan) - std::stod(before.at(values).makespan),
                  engine_makespan(m, 0.104) - engine_makespan(m, 0.102) + 2 * (0.004 - 0.002), 1e-9)
          << values;
    } else {
      EXPECT_EQ(row.makespan, before.at(values).makespan) << values;
    }
  }
  // Each run's directory records what it read.
  const std::string inputs = read_file(dir + "/out/runs/" + after.at("4/b.xml").id + "/inputs.json");
  EXPECT_NE(inputs.find("\"path\": \"b.xml\""), std::string::npos) << inputs;
  EXPECT_NE(inputs.find("\"version\": \"" + pipegrid_version() + "\""), std::string::npos) << inputs;

  // Nothing changed: nothing reruns.
  const auto third = sweep_in(dir);
  EXPECT_NE(third.err.find("4 configurations, 4 already done, 0 ran"), std::string::npos) << third.err;
  EXPECT_EQ(third.err.find("reran"), std::string::npos) << third.err;
}

TEST(SweepIdentity, EditingTheGpuFileRerunsTheConfigurationsThatReadIt) {
  // A model priced by a GPU file of the user's own: a slower GEMM efficiency in it makes the row stale.
  const std::string dir = fresh_dir("gpu-file");
  fs::copy_file(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml", dir + "/a.xml");
  const auto gpu = [&](const std::string& efficiency) {
    std::ofstream(dir + "/g.toml") << "gpu_models = [\"g\"]\nsms = 4\ntensor_flops = 1e12\nhbm_bandwidth = 1e11\n"
                                      "gemm_tiles = [[64, 64]]\n[constants]\ngemm_efficiency = " << efficiency
                                   << "\nwave_seconds = 0\nmemory_efficiency = 1\nkernel_floor_seconds = 0\n";
  };
  gpu("1");
  std::ofstream(dir + "/sweep.toml") << "[base.platform]\nfile = \"a.xml\"\n[base.parallel]\npp = 2\n"
                                        "[base.model]\nlayers = 2\nhidden = 256\nheads = 4\nseq = 64\nvocab = 256\n"
                                        "gpu_file = \"g.toml\"\n[base.sim]\nschedule = \"1f1b\"\n"
                                        "[base.output]\ntrace = \"off\"\n[axes]\n\"parallel.microbatches\" = [2, 4]\n";
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const auto before = rows(dir, 1);
  gpu("0.5");
  const auto again = sweep_in(dir);
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("sweep: reran 2 configurations with a result: g.toml changed (2)\n"), std::string::npos)
      << again.err;
  for (const auto& [values, row] : rows(dir, 1))
    EXPECT_GT(std::stod(row.makespan), std::stod(before.at(values).makespan)) << values;
}

TEST(SweepIdentity, WhatAnOlderPipegridComputedRunsAgain) {
  const std::string dir = two_platform_sweep("version");
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const std::string id = rows(dir, 2).at("8/a.xml").id;
  const std::string path = dir + "/out/runs/" + id + "/inputs.json";
  std::string inputs = read_file(path);
  const std::string now = "\"version\": \"" + pipegrid_version() + "\"";
  ASSERT_NE(inputs.find(now), std::string::npos);
  inputs.replace(inputs.find(now), now.size(), "\"version\": \"0.1.0\"");
  std::ofstream(path) << inputs;
  const auto again = sweep_in(dir);
  EXPECT_NE(again.err.find("sweep: reran 1 configuration with a result: pipegrid 0.1.0 → " + pipegrid_version() + " (1)\n"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(attempts(dir, id), 2u);
}

// A configuration's id is its options' content: an option added since, left at its default, is not in
// it (identity_when_given), so a sweep written before keeps its ids and runs/ID folders. The ids below
// are those pipegrid 0.x computed at main ceaf4bb (2026-12-07), before sequence parallelism, context
// parallelism and TP overlap had options.
TEST(SweepIdentity, OptionsAddedSinceKeepAnOlderSweepsIds) {
  const std::string dir = fresh_dir("older-ids");
  std::ofstream(dir + "/exp.toml") << "[platform]\npreset = \"dgx-a100\"\nnodes = 1\n"
                                      "[parallel]\ntp = 2\npp = 2\ndp = 2\nmicrobatches = 4\n"
                                      "[model]\nlayers = 4\nhidden = 256\nheads = 4\nseq = 256\nvocab = 1024\n"
                                      "[sim]\nschedule = \"1f1b\"\n[output]\ntrace = \"off\"\n";
  std::ofstream(dir + "/sweep.toml") << "base = \"exp.toml\"\n[axes]\n\"sim.schedule\" = [\"1f1b\", \"gpipe\"]\n";
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const auto by_schedule = rows(dir, 1);
  EXPECT_EQ(by_schedule.at("1f1b").id, "09ecb98a1fb096e9");
  EXPECT_EQ(by_schedule.at("gpipe").id, "bd3a1a4bdf82e1ca");
}

TEST(SweepIdentity, ForceRerunsEverything) {
  const std::string dir = two_platform_sweep("force");
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const auto again = sweep_in(dir, " --force");
  EXPECT_NE(again.err.find("sweep: reran 4 configurations with a result: --force (4)\n"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("4 configurations, 0 already done, 4 ran (4 ok)"), std::string::npos) << again.err;
}

TEST(SweepIdentity, TheLogLevelAndTheProgressLineRerunNothing) {
  // How a run talks on stderr is not what it computes: setting either in the base experiment, or the
  // sweep's own --log-level, keeps every result and every configuration's id.
  const std::string dir = two_platform_sweep("talk");
  ASSERT_EQ(sweep_in(dir).exit_code, 0);
  const auto before = rows(dir, 2);
  ASSERT_EQ(before.size(), 4u);
  std::string sweep = read_file(dir + "/sweep.toml");
  const std::string output = "[base.output]\n";
  ASSERT_NE(sweep.find(output), std::string::npos);
  sweep.insert(sweep.find(output) + output.size(), "log_level = \"debug\"\nprogress = \"on\"\n");
  std::ofstream(dir + "/sweep.toml") << sweep;
  for (const std::string flags : {"", " --log-level info", " --log-level off"}) {
    const auto again = sweep_in(dir, flags);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.err.find("4 configurations, 4 already done, 0 ran"), std::string::npos) << flags << again.err;
    EXPECT_EQ(again.err.find("reran"), std::string::npos) << again.err;
  }
  const auto after = rows(dir, 2);
  for (const auto& [values, row] : before) {
    EXPECT_EQ(after.at(values).id, row.id) << values;
    EXPECT_EQ(attempts(dir, row.id), 1u) << values;
  }
  // And a run the sweep does start takes the sweep's level, not the file's, and draws no progress
  // line into its stderr.txt.
  ASSERT_EQ(sweep_in(dir, " --force --log-level warn").exit_code, 0);
  for (const auto& [values, row] : after)
    EXPECT_EQ(read_file(dir + "/out/runs/" + row.id + "/stderr.txt"), "") << values;
}

TEST(SweepIdentity, TwoConfigurationsThatAreOneExperimentAreRefused) {
  const std::string dir = fresh_dir("duplicates");
  fs::copy_file(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml", dir + "/a.xml");
  const std::string base = "[base.platform]\nfile = \"a.xml\"\n[base.parallel]\npp = 2\nmicrobatches = 4\n"
                           "[base.sim]\nschedule = \"1f1b\"\n";
  // The same value twice.
  std::ofstream(dir + "/sweep.toml") << base << "[axes]\n\"parallel.microbatches\" = [4, 8, 4]\n";
  auto r = sweep_in(dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: sweep.toml: configurations 0 (parallel.microbatches=4) and 2 "
                   "(parallel.microbatches=4) are the same experiment\n");
  // 1 and 1.0 are one forward time; 1 s is also the default, so the base says the same.
  std::ofstream(dir + "/sweep.toml") << base << "[axes]\n\"sim.time_f\" = [1, 2, 1.0]\n";
  r = sweep_in(dir);
  EXPECT_EQ(r.err, "pipegrid: error: sweep.toml: configurations 0 (sim.time_f=1) and 2 (sim.time_f=1) are the same "
                   "experiment\n");
  EXPECT_FALSE(fs::exists(dir + "/out/runs")) << "nothing may run";
}

TEST(SweepIdentity, AxisValuesAreCheckedWhenTheSweepIsRead) {
  const std::string dir = fresh_dir("values");
  std::ofstream(dir + "/sweep.toml") << "[base.platform]\nfile = \"a.xml\"\n[base.sim]\nschedule = \"1f1b\"\n"
                                        "[base.parallel]\npp = 2\nmicrobatches = 4\n"
                                        "[axes]\n\"model.compute_efficiency\" = [0.5, 1.5]\n";
  const auto r = sweep_in(dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: sweep.toml:9:36: model.compute_efficiency: must be in (0, 1]\n");
}

TEST(SweepIdentity, AHungRunIsKilledAtItsTimeoutAndRerunsLater) {
  // A run that can never end: its routing loads file is a named pipe nobody writes to, so opening it
  // blocks for ever. No wall clock decides the outcome, only the timeout.
  const std::string dir = fresh_dir("hung");
  fs::copy_file(PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml", dir + "/a.xml");
  ASSERT_EQ(mkfifo((dir + "/loads.txt").c_str(), 0644), 0);
  std::ofstream(dir + "/sweep.toml")
      << "[base.platform]\nfile = \"a.xml\"\n[base.parallel]\npp = 2\ndp = 2\nep = 2\nmicrobatches = 2\n"
         "[base.model]\nlayers = 2\nhidden = 64\nheads = 4\nseq = 16\nvocab = 128\nexperts = 4\ntop_k = 2\n"
         "expert_hidden = 32\ncompute_efficiency = 1\n[base.sim]\nschedule = \"1f1b\"\n[base.output]\n"
         "trace = \"off\"\n[axes]\n\"model.routing\" = [\"uniform\", \"file:loads.txt\"]\n";
  const auto r = sweep_in(dir, " --timeout 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto by = rows(dir, 1);
  EXPECT_EQ(by.at("uniform").status, "ok");
  EXPECT_EQ(by.at("file:loads.txt").status, "timeout");
  EXPECT_NE(read_file(dir + "/out/results.csv").find("exceeded the per-run timeout of 2 s"), std::string::npos);

  // A timeout says more about the limit than the configuration: the next invocation runs it again.
  fs::remove(dir + "/loads.txt");
  std::ofstream(dir + "/loads.txt") << "1 1 1 1\n";
  const auto again = sweep_in(dir);
  EXPECT_NE(again.err.find("sweep: reran 1 configuration with a result: timeout (1)\n"), std::string::npos) << again.err;
  by = rows(dir, 1);
  EXPECT_EQ(by.at("file:loads.txt").status, "ok");
  EXPECT_EQ(attempts(dir, by.at("file:loads.txt").id), 2u);
  EXPECT_EQ(attempts(dir, by.at("uniform").id), 1u);
}

TEST(SweepIdentity, TheTimeoutIsCheckedWhenARunIsReaped) {
  // A run that exited on its own after overrunning its timeout, before the sweep looked, is a timeout.
  const int exited_ok = 0;  // what waitpid reports for exit(0)
  ASSERT_TRUE(WIFEXITED(exited_ok) && WEXITSTATUS(exited_ok) == 0);
  EXPECT_EQ(sweep::run_status(exited_ok, 2.5, 2), "timeout");
  EXPECT_EQ(sweep::run_status(exited_ok, 1.5, 2), "ok");
  EXPECT_EQ(sweep::run_status(exited_ok, 1e6, 0), "ok");  // 0: no limit
  EXPECT_EQ(sweep::run_status(2 << 8, 1, 2), "invalid");
  EXPECT_EQ(sweep::run_status(3 << 8, 1, 2), "deadlock");
  EXPECT_EQ(sweep::run_status(70 << 8, 1, 2), "error");
  EXPECT_EQ(sweep::run_status(SIGKILL, 1, 2), "error");  // killed by a signal, within the limit
}

}  // namespace
}  // namespace pipegrid
