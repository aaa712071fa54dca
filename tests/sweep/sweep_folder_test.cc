// A sweep's --out folder (issue 33): one sweep writes it at a time — a second, different sweep started
// beside it is refused naming the first instead of both "succeeding" into a results.csv of a header —
// and a run whose folder says it never finished (status.json) is not served as done.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "command_runner.h"

extern char** environ;

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::fresh_dir;
using test_support::read_file;
using test_support::run_pipegrid;

// One configuration of several seconds (192 GPUs, 8192 micro-batches): still running when looked at.
std::string long_sweep(const std::string& p2p) {
  return "[base.platform]\npreset = \"dgx-a100\"\nnodes = 24\n"
         "[base.parallel]\ntp = 8\npp = 6\ndp = 4\nmicrobatches = 8192\n"
         "[base.model]\nname = \"gpt-7.5b\"\n[base.sim]\nschedule = \"1f1b\"\n[base.output]\ntrace = \"off\"\n"
         "[axes]\n\"sim.p2p\" = [\"" + p2p + "\"]\n";
}

bool eventually(const std::function<bool()>& condition) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < limit) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(SweepFolder, ASecondSweepIntoTheSameOutIsRefusedNamingTheFirst) {
  const std::string dir = fresh_dir("sweep-second"), out = dir + "/out";
  std::ofstream(dir + "/a.toml") << long_sweep("async");
  std::ofstream(dir + "/b.toml") << long_sweep("rendezvous");
  // The first in a process group of its own, so that it goes with its runs at the end.
  const std::string a = dir + "/a.toml";
  const char* argv[] = {PIPEGRID_BINARY, "sweep", a.c_str(), "--out", out.c_str(), "--jobs", "1", nullptr};
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, (dir + "/a.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t first = 0;
  ASSERT_EQ(posix_spawn(&first, PIPEGRID_BINARY, &files, &attributes, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  // It holds the folder once its pid is in DIR/.lock.
  ASSERT_TRUE(eventually([&] { return read_file(out + "/.lock") == std::to_string(first) + "\n"; }))
      << read_file(dir + "/a.err");
  const auto second = run_pipegrid("sweep " + dir + "/b.toml --out " + out);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_EQ(second.err, "pipegrid: error: --out " + out + ": another pipegrid run (pid " + std::to_string(first) +
                            ") is writing there\n");
  kill(-first, SIGKILL);
  int status = 0;
  waitpid(first, &status, 0);
  // Once the first and its runs are gone, the folder is free: the kernel released the lock.
  const auto merge = run_pipegrid("sweep " + dir + "/b.toml --out " + out + " --merge");
  EXPECT_NE(merge.err.find("merged 0 of 1 configurations"), std::string::npos) << merge.err;
}

TEST(SweepFolder, ARunWhoseStatusSaysRunningIsRunAgain) {
  const std::string dir = fresh_dir("sweep-unfinished"), out = dir + "/out";
  std::ofstream(dir + "/sweep.toml") << "base = \"" PIPEGRID_TEST_DATA "/sweeps/job.toml\"\n"
                                     << "[axes]\n\"parallel.microbatches\" = [16, 24]\n";
  const std::string sweep = "sweep " + dir + "/sweep.toml --out " + out;
  ASSERT_EQ(run_pipegrid(sweep).exit_code, 0);
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(out + "/runs")) ids.push_back(entry.path().filename().string());
  ASSERT_EQ(ids.size(), 2u);
  for (const std::string& id : ids)
    EXPECT_NE(read_file(out + "/runs/" + id + "/status.json").find("\"complete\""), std::string::npos);
  // As a run killed before it could say how it ended leaves it.
  const std::string killed = out + "/runs/" + ids[0];
  std::ofstream(killed + "/status.json") << "{\"status\": \"running\", \"pid\": 1}\n";
  const auto again = run_pipegrid(sweep);
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("reran 1 configuration with a result: status.json says running (1)"), std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("2 configurations, 1 already done, 1 ran"), std::string::npos) << again.err;
  EXPECT_NE(read_file(killed + "/status.json").find("\"complete\""), std::string::npos);
}

}  // namespace
}  // namespace pipegrid
