// A command run as a child (a lesson's run, a plot script): its exit code, a start that fails, and
// nothing it started outliving it — the lesson-like commands here fork grandchildren, each holding a
// marker of this test (sleep's argument) that /proc is searched for afterwards.
#include "sim/cli/child_process.h"

#include <gtest/gtest.h>
#include <stdexcept>
#include <unistd.h>

#include "processes.h"

namespace pipegrid::cli {
namespace {

using test_support::eventually;
using test_support::processes_with;

// A thousand seconds, written as no other test's: "1000.PID", sleep's argument and the marker to search.
std::string marker() { return "1000." + std::to_string(getpid()); }

ChildCommand shell(const std::string& script, double timeout = 0) {
  return {.binary = "/bin/sh", .args = {"-c", script}, .timeout_seconds = timeout};
}

TEST(ChildProcess, GivesTheChildsExitCode) {
  EXPECT_EQ(run_child(shell("exit 7")).exit_code, 7);
  EXPECT_FALSE(run_child(shell("exit 7")).timed_out);
  EXPECT_EQ(run_child(shell("kill -KILL $$")).exit_code, -1);
}

TEST(ChildProcess, ABinaryThatCannotStartIsAnError) {
  try {
    run_child({.binary = "/nonexistent/binary"});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot start /nonexistent/binary: could not execute it: No such file or directory");
  }
}

// The lesson whose command recursed left hundreds of processes behind: killed at its timeout,
// the child takes everything it started with it (its process group).
TEST(ChildProcess, AtItsTimeoutTheChildAndEveryProcessItStartedAreKilled) {
  const std::string sleep = "sleep " + marker();
  const ChildOutcome outcome = run_child(shell(sleep + " & " + sleep + " & " + sleep, 1));
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_EQ(outcome.exit_code, -1);
  const bool none_left = eventually([&] { return processes_with(marker()).empty(); });
  EXPECT_TRUE(none_left) << processes_with(marker()).size() << " processes left";
  test_support::kill_all_with(marker());
}

TEST(ChildProcess, WhatAChildLeftRunningEndsWithIt) {
  const std::string sleep = "sleep " + marker();
  const ChildOutcome outcome = run_child(shell(sleep + " & exit 0"));
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(outcome.exit_code, 0);
  const bool none_left = eventually([&] { return processes_with(marker()).empty(); });
  EXPECT_TRUE(none_left) << processes_with(marker()).size() << " processes left";
  test_support::kill_all_with(marker());
}

}  // namespace
}  // namespace pipegrid::cli
