// --progress: the self-updating line a simulation draws on stderr, seen on a terminal (a pty) and in a
// pipe, and its rules (when it is due, what it says) with the wall clock given by hand. No test here
// depends on how long anything takes.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command_runner.h"
#include "sim/exec/progress_line.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
// 1F1B on two GPUs: 8 ops per rank, 16 in all.
const std::string kRun = "simulate --platform " + kStar + " --schedule 1f1b --pp 2 --microbatches 4 --p2p-bytes 1e8";

struct TerminalRun {
  bool had_terminal = false;  // a pseudo-terminal could be opened (a chroot without /dev/pts has none)
  int exit_code = -1;
  std::string terminal;  // what pipegrid wrote to its terminal: stderr (the pty turns "\n" into "\r\n")
  std::string out;       // stdout, which went to a file
};

// `pipegrid ARGS` with stderr on a pseudo-terminal and stdout in a file.
TerminalRun run_on_terminal(const std::string& args) {
  const std::string out = ::testing::TempDir() + "pipegrid-pty-out-" + std::to_string(getpid());
  const std::string command = std::string(PIPEGRID_BINARY) + " " + args + " >" + out;
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  TerminalRun run;
  if (pid < 0) return run;
  run.had_terminal = true;
  char buffer[4096];
  for (;;) {  // until the terminal closes: EIO once the last writer has gone
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n > 0)
      run.terminal.append(buffer, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(out);
  fs::remove(out);
  return run;
}

TEST(ProgressCli, OnATerminalTheLineIsRedrawnInPlace) {
  const auto r = run_on_terminal(kRun + " --progress on");
  if (!r.had_terminal) GTEST_SKIP() << "no pseudo-terminal here (forkpty failed)";
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  // Each draw returns to the start of the line; the last says where the run ended, then the line ends.
  ASSERT_TRUE(r.terminal.starts_with("\rsimulating: t = ")) << r.terminal;
  const std::string last = r.terminal.substr(r.terminal.rfind('\r', r.terminal.size() - 3));
  // Its ETA runs to the contention-free makespan: 1F1B's (m + p − 1)(F + B) = 5 × 3 s; the transfers
  // (1e8 bytes each) make the simulated step 15.41 s.
  EXPECT_TRUE(last.starts_with("\rsimulating: t = 15.41 s of ~15 s contention-free, ops 100% (16/16), ")) << last;
  EXPECT_NE(last.find(" clock advances, wall 0:"), std::string::npos) << last;
  EXPECT_TRUE(last.ends_with("\r\n")) << last;
  EXPECT_EQ(std::count(r.terminal.begin(), r.terminal.end(), '\n'), 1) << r.terminal;
  // stdout is the same as without the line.
  EXPECT_EQ(r.out, run_pipegrid(kRun).out);
}

TEST(ProgressCli, OffDrawsNothingOnATerminal) {
  const auto r = run_on_terminal(kRun + " --progress off");
  if (!r.had_terminal) GTEST_SKIP() << "no pseudo-terminal here (forkpty failed)";
  ASSERT_EQ(r.exit_code, 0) << r.terminal;
  EXPECT_EQ(r.terminal, "");
  EXPECT_FALSE(r.out.empty());
}

TEST(ProgressCli, AutoDrawsNothingIntoAPipe) {
  // stdout and stderr both into one pipe: the table alone comes out of it.
  const std::string table = run_pipegrid(kRun).out;
  for (const std::string setting : {"", " --progress auto"}) {
    const auto r = run_pipegrid(kRun + setting + " 2>&1 | cat");
    EXPECT_EQ(r.out, table) << setting;
  }
  // on draws it wherever stderr goes.
  const auto on = run_pipegrid(kRun + " --progress on 2>&1 | cat");
  EXPECT_NE(on.out.find("\rsimulating: t = "), std::string::npos) << on.out;
}

TEST(ProgressCli, TheLineChangesNoOutputFile) {
  const std::string base = ::testing::TempDir() + "pipegrid-progress-" + std::to_string(getpid());
  fs::remove_all(base);
  const auto drawn = run_on_terminal(kRun + " --progress on --out " + base + "/on");
  if (!drawn.had_terminal) GTEST_SKIP() << "no pseudo-terminal here (forkpty failed)";
  const auto plain = run_pipegrid(kRun + " --progress off --out " + base + "/off");
  ASSERT_EQ(drawn.exit_code, 0) << drawn.terminal;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_NE(drawn.terminal.find("simulating:"), std::string::npos);
  std::size_t files = 0;
  for (const auto& file : fs::directory_iterator(base + "/off")) {
    // The run's own record, not its results: its pid and command line (status.json, .lock).
    const std::string name = file.path().filename().string();
    if (name == "status.json" || name == ".lock") continue;
    ++files;
    EXPECT_EQ(read_file((base + "/on/" + file.path().filename().string())), read_file(file.path().string()))
        << file.path().filename();
  }
  EXPECT_GE(files, 3u);  // summary.json, trace.csv, links.csv, …
  fs::remove_all(base);
}

TEST(ProgressCli, RunTakesTheFlagForASimulationOnly) {
  const std::string dir = ::testing::TempDir() + "pipegrid-progress-run-" + std::to_string(getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/sim.toml") << "[platform]\nfile = \"" << kStar
                                   << "\"\n[parallel]\npp = 2\nmicrobatches = 4\n[sim]\nschedule = \"1f1b\"\n";
  std::ofstream(dir + "/schedule.toml") << "[parallel]\npp = 2\nmicrobatches = 4\n[sim]\ncommand = \"schedule\"\n"
                                           "schedule = \"1f1b\"\n";
  const auto drawn = run_on_terminal("run " + dir + "/sim.toml --progress on");
  if (!drawn.had_terminal) GTEST_SKIP() << "no pseudo-terminal here (forkpty failed)";
  ASSERT_EQ(drawn.exit_code, 0) << drawn.terminal;
  EXPECT_TRUE(drawn.terminal.starts_with("\rsimulating: t = ")) << drawn.terminal;
  const auto refused = run_pipegrid("run " + dir + "/schedule.toml --progress on");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "pipegrid: error: --progress: shows a simulation's progress; this experiment runs schedule\n");
  fs::remove_all(dir);
}

TEST(ProgressLine, WhenItIsShownAndRedrawn) {
  using sim::ProgressShow;
  EXPECT_EQ(sim::progress_show("auto", true), ProgressShow::AfterQuiet);
  EXPECT_EQ(sim::progress_show("auto", false), ProgressShow::Never);
  EXPECT_EQ(sim::progress_show("on", false), ProgressShow::AtOnce);
  EXPECT_EQ(sim::progress_show("off", true), ProgressShow::Never);

  std::FILE* sink = std::tmpfile();
  ASSERT_NE(sink, nullptr);
  {
    sim::ProgressLine quiet(sink, ProgressShow::AfterQuiet);
    EXPECT_FALSE(quiet.due(0));
    EXPECT_FALSE(quiet.due(sim::kQuietSeconds - 0.01));
    EXPECT_TRUE(quiet.due(sim::kQuietSeconds));
    quiet.draw({.simulated = 1, .wall = sim::kQuietSeconds});
    EXPECT_FALSE(quiet.due(sim::kQuietSeconds + sim::ProgressLine::kRedrawSeconds / 2));  // a few times a second
    EXPECT_TRUE(quiet.due(sim::kQuietSeconds + sim::ProgressLine::kRedrawSeconds));
    sim::ProgressLine at_once(sink, ProgressShow::AtOnce);
    EXPECT_TRUE(at_once.due(0));
    sim::ProgressLine never(sink, ProgressShow::Never);
    EXPECT_FALSE(never.due(1e6));
  }  // each line ends (with a newline, if drawn) before its file closes
  std::rewind(sink);
  char text[256] = {};
  const std::size_t n = std::fread(text, 1, sizeof text - 1, sink);
  EXPECT_EQ(std::string(text, n), "\rsimulating: t = 1 s simulated, 0 clock advances, wall 0:02\n");
  std::fclose(sink);
}

TEST(ProgressLine, WhatItSays) {
  // 41 of 100 ops in 41 s of wall time: the other 59 at that pace take 59 s more.
  EXPECT_EQ(
      sim::progress_text({.simulated = 12.5, .wall = 41, .clock_advances = 8100, .ops_done = 41, .ops_total = 100}),
      "simulating: t = 12.5 s simulated, ops 41% (41/100), 8100 clock advances, wall 0:41, ETA 0:59");
  EXPECT_EQ(sim::progress_text(
                {.simulated = 87.8, .wall = 3725, .clock_advances = 2'500'000, .ops_done = 10, .ops_total = 10}),
            "simulating: t = 87.8 s simulated, ops 100% (10/10), 2.5 M clock advances, wall 1:02:05");
  // With the contention-free makespan: 12.5 of ~30 simulated seconds in 41 s of wall time, the other
  // 17.5 at that pace take 57.4 s more; past it, the ops' share gives the ETA.
  EXPECT_EQ(sim::progress_text({.simulated = 12.5, .wall = 41, .clock_advances = 8100, .ops_done = 41,
                                .ops_total = 100, .expected = 30}),
            "simulating: t = 12.5 s of ~30 s contention-free, ops 41% (41/100), 8100 clock advances, wall 0:41, "
            "ETA 0:57");
  EXPECT_EQ(sim::progress_text({.simulated = 40, .wall = 41, .clock_advances = 8100, .ops_done = 41,
                                .ops_total = 100, .expected = 30}),
            "simulating: t = 40 s of ~30 s contention-free, ops 41% (41/100), 8100 clock advances, wall 0:41, "
            "ETA 0:59");
  // Nothing done yet: no ETA to give.
  EXPECT_EQ(sim::progress_text({.simulated = 0, .wall = 0.2, .clock_advances = 3, .ops_done = 0, .ops_total = 10}),
            "simulating: t = 0 s simulated, ops 0% (0/10), 3 clock advances, wall 0:00");
}

}  // namespace
}  // namespace pipegrid
