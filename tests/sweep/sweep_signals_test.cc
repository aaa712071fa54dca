// A sweep signalled while its runs are mid-flight, as Ctrl-C, `kill` or Slurm's scancel would signal
// it: the sweep ends with 130 or 143 (SIGKILL: no code, no handler), no run of it is left (its runs are
// found in /proc by the sweep's unique --out, which their command lines hold: they are forks of the
// sweep), each run ended by the signal rather than by finishing (the test is their subreaper and reads
// their exit codes), the rows it finished are kept and resuming it gives the bytes of a sweep never
// interrupted.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <vector>
#include <unistd.h>

#include "command_runner.h"
#include "processes.h"

extern char** environ;

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::eventually;
using test_support::read_file;
using test_support::run_pipegrid;

// Four runs of a second or more each (about 1 ms per micro-batch), two at a time: a signal sent once
// the first run exists finds runs mid-flight and others not started.
constexpr int kConfigurations = 4;
const char* const kMicrobatches = "[1024, 1152, 1280, 1408]";

std::string write_sweep(const std::string& dir) {
  const std::string file = dir + "/slow.toml";
  std::ofstream(file) << "base = \"" PIPEGRID_TEST_DATA "/sweeps/job.toml\"\n[axes]\n\"parallel.microbatches\" = "
                      << kMicrobatches << "\n";
  return file;
}

std::string sweep_command(const std::string& file, const std::string& out) {
  return std::string("cd ") + PIPEGRID_SOURCE_DIR + " && exec " + PIPEGRID_BINARY + " sweep " + file + " --out " + out +
         " --jobs 2";
}

// The sweep started as a shell's job would be, in the background; its progress lines in OUT.err.
pid_t start_sweep(const std::string& file, const std::string& out) {
  const std::string command = sweep_command(file, out) + " 2>" + out + ".err";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

// Signals the sweep once a run of it exists; returns the sweep's exit code (-1: killed by the signal).
int interrupt_mid_flight(pid_t sweep, const std::string& out, int signal) {
  const bool running = eventually([&] { return !test_support::children_with(sweep, out).empty(); });
  EXPECT_TRUE(running) << "no run of the sweep started";
  kill(sweep, signal);
  int status = 0;
  waitpid(sweep, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The exit codes of the sweep's runs, which come to this process once the sweep is gone (it is their
// subreaper), gathered until this process has no child left: every run has then ended and been reaped.
// /proc cannot tell this: a run between releasing its memory and becoming a zombie shows an empty
// command line. A run cut by the signal exits 130 or 143; one left running would finish and exit 0.
std::vector<int> exit_codes_of_orphans(const std::string& out) {
  std::vector<int> codes;
  const bool none_left = test_support::reap_every_child(codes);
  EXPECT_TRUE(none_left) << test_support::processes_with(out).size() << " processes of the sweep left";
  test_support::kill_all_with(out);
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  return codes;
}

void expect_interrupted_then_resumed(int signal, int expected_exit) {
  const std::string dir = test_support::fresh_dir("sweep-signal-" + std::to_string(signal));
  const std::string file = write_sweep(dir);
  const std::string reference = dir + "/reference", out = dir + "/interrupted";
  const auto whole = run_pipegrid("--help >/dev/null; " + sweep_command(file, reference));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  ASSERT_EQ(test_support::csv_data_rows(reference + "/results.csv"), static_cast<std::size_t>(kConfigurations));

  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const pid_t sweep = start_sweep(file, out);
  EXPECT_EQ(interrupt_mid_flight(sweep, out, signal), expected_exit);
  const std::vector<int> runs = exit_codes_of_orphans(out);
  EXPECT_FALSE(runs.empty()) << "no run of the sweep was running";
  // SIGINT and SIGTERM are passed on; after a SIGKILL the kernel sends each run SIGTERM.
  const int run_exit = signal == SIGINT ? 130 : 143;
  for (int code : runs) EXPECT_EQ(code, run_exit);
  // The sweep's last words, after its runs': where its rows are and that the same command finishes it.
  if (signal != SIGKILL) {
    EXPECT_NE(read_file(out + ".err").find(std::string("pipegrid: sweep interrupted by ") +
                                           (signal == SIGINT ? "SIGINT" : "SIGTERM") + "; the finished runs' rows are in " +
                                           out + "/results.csv, and the same command runs the rest\n"),
              std::string::npos)
        << read_file(out + ".err");
  }
  const std::size_t finished = test_support::csv_data_rows(out + "/results.csv");
  EXPECT_LT(finished, static_cast<std::size_t>(kConfigurations)) << "the sweep had finished: nothing was interrupted";

  const auto resumed = run_pipegrid("--help >/dev/null; " + sweep_command(file, out));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(finished) + " already done"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_file(out + "/results.csv"), read_file(reference + "/results.csv"));
}

TEST(SweepSignals, SigtermEndsTheSweepWith143AndItsRunsWithIt) { expect_interrupted_then_resumed(SIGTERM, 143); }

TEST(SweepSignals, SigintEndsTheSweepWith130AndItsRunsWithIt) { expect_interrupted_then_resumed(SIGINT, 130); }

// No handler sees a SIGKILL: each run has asked the kernel for a SIGTERM when its parent dies.
TEST(SweepSignals, SigkillOfTheSweepEndsItsRunsToo) { expect_interrupted_then_resumed(SIGKILL, -1); }

}  // namespace
}  // namespace pipegrid
