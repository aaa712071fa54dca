// `pipegrid sweep` as a user runs it: processes in parallel, a sweep killed part-way and resumed,
// shards merged, byte-identical results and bad sweep files (timeouts and stale results:
// sweep_identity_test.cc).
#include <gtest/gtest.h>

#include <algorithm>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "command_runner.h"

extern char** environ;

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kTwelve = PIPEGRID_TEST_DATA "/sweeps/twelve.toml";

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-sweep-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// status column of each data row, by id
std::map<std::string, std::string> statuses(const std::string& results) {
  std::map<std::string, std::string> by_id;
  const auto rows = lines(read_file(results));
  if (rows.empty()) return by_id;
  std::vector<std::string> header;
  std::istringstream names(rows[0]);
  for (std::string f; std::getline(names, f, ',');) header.push_back(f);
  const std::size_t status = std::find(header.begin(), header.end(), "status") - header.begin();
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> fields;
    std::istringstream in(rows[i]);
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    if (fields.size() > status) by_id[fields[0]] = fields[status];
  }
  return by_id;
}

std::size_t attempts(const std::string& out, const std::string& id) {
  return lines(read_file(out + "/runs/" + id + "/attempts")).size();
}

// Every sweep runs from the source tree, which its platform paths are relative to (run_pipegrid starts
// the binary where the tests run, hence the `--help; cd … && …` commands).

// The sweep runs in its own process group, so that the kill takes its shell with it; its runs, in a
// group of the sweep's making, end as it dies (their PDEATHSIG, sweep_signals_test.cc). It is killed
// when it has reported four finished runs on stderr (one line each when stderr is not a terminal,
// written after the run's row): an event, not a moment on the clock.
TEST(Sweep, KilledPartWayAndResumedEndsWithEveryRowOnce) {
  const std::string out = fresh_dir("resume");
  const std::string command = std::string("cd ") + PIPEGRID_SOURCE_DIR + " && exec " + PIPEGRID_BINARY + " sweep " +
                              kTwelve + " --out " + out + " --jobs 2";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  int progress[2];
  ASSERT_EQ(pipe(progress), 0);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, progress[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&files, progress[0]);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", &files, &attributes, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  close(progress[1]);
  std::FILE* lines = fdopen(progress[0], "r");
  int finished = 0;
  for (char line[4096]; finished < 4 && std::fgets(line, sizeof line, lines);) finished += line[0] == '[';
  kill(-pid, SIGKILL);
  std::fclose(lines);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(finished, 4) << "the sweep ended before it reported four runs";
  const auto before = statuses(out + "/results.csv");
  ASSERT_GE(before.size(), 4u);  // each row is written before its progress line

  const auto resumed = run_pipegrid("--help >/dev/null; cd " + std::string(PIPEGRID_SOURCE_DIR) + " && " +
                                    PIPEGRID_BINARY + " sweep " + kTwelve + " --out " + out + " --jobs 2");
  EXPECT_NE(resumed.err.find(std::to_string(before.size()) + " already done"), std::string::npos) << resumed.err;
  const auto after = statuses(out + "/results.csv");
  ASSERT_EQ(after.size(), 12u);
  std::size_t ok = 0, deadlock = 0;
  for (const auto& [id, s] : after) {
    ok += s == "ok";
    deadlock += s == "deadlock";
    // Finished before the kill: never started again. Running at the kill: started twice at most.
    if (before.contains(id)) {
      EXPECT_EQ(attempts(out, id), 1u) << id;
    } else {
      EXPECT_LE(attempts(out, id), 2u) << id;
    }
  }
  EXPECT_EQ(ok, 11u);
  EXPECT_EQ(deadlock, 1u);
}

TEST(Sweep, SameSweepSameBytesWhateverTheJobs) {
  const std::string one = fresh_dir("one"), two = fresh_dir("two");
  const std::string cd = std::string("cd ") + PIPEGRID_SOURCE_DIR + " && " + PIPEGRID_BINARY;
  ASSERT_EQ(run_pipegrid("--help >/dev/null; " + cd + " sweep " + kTwelve + " --out " + one + " --jobs 1").exit_code, 0);
  ASSERT_EQ(run_pipegrid("--help >/dev/null; " + cd + " sweep " + kTwelve + " --out " + two + " --jobs 2").exit_code, 0);
  EXPECT_EQ(read_file(one + "/results.csv"), read_file(two + "/results.csv"));
  EXPECT_EQ(lines(read_file(one + "/results.csv")).size(), 13u);
}

// Runs are forked from the sweep rather than started afresh: each must still write exactly what
// `pipegrid run` of its experiment writes on its own, deadlock report included.
TEST(Sweep, EachRunWritesWhatPipegridRunWritesAlone) {
  const std::string out = fresh_dir("alone");
  const std::string cd = std::string("--help >/dev/null; cd ") + PIPEGRID_SOURCE_DIR + " && " + PIPEGRID_BINARY;
  ASSERT_EQ(run_pipegrid(cd + " sweep " + kTwelve + " --out " + out + " --jobs 2").exit_code, 0);
  const auto by_id = statuses(out + "/results.csv");
  ASSERT_EQ(by_id.size(), 12u);
  for (const auto& [id, status] : by_id) {
    const std::string run = out + "/runs/" + id, alone = out + "/alone-" + id;
    const auto direct = run_pipegrid(cd + " run " + run + "/experiment.toml --out " + alone + " --format json");
    EXPECT_EQ(direct.exit_code, status == "ok" ? 0 : 3) << id;
    EXPECT_EQ(direct.out, read_file(run + "/stdout.json")) << id;
    std::string err = direct.err;  // names its output directory
    for (std::size_t at; (at = err.find(alone)) != std::string::npos;) err.replace(at, alone.size(), run);
    EXPECT_EQ(err, read_file(run + "/stderr.txt")) << id;
    for (const char* file : {"summary.json", "links.csv", "deadlock.json"}) {
      if (fs::exists(run + "/" + file) || fs::exists(alone + "/" + file)) {
        EXPECT_EQ(read_file(alone + "/" + file), read_file(run + "/" + file)) << id << " " << file;
      }
    }
  }
}

TEST(Sweep, ShardsMergeIntoTheSameResults) {
  const std::string whole = fresh_dir("whole"), sharded = fresh_dir("sharded");
  const std::string cd = std::string("--help >/dev/null; cd ") + PIPEGRID_SOURCE_DIR + " && " + PIPEGRID_BINARY;
  ASSERT_EQ(run_pipegrid(cd + " sweep " + kTwelve + " --out " + whole).exit_code, 0);
  for (const char* shard : {"0/3", "1/3", "2/3"})
    ASSERT_EQ(run_pipegrid(cd + " sweep " + kTwelve + " --out " + sharded + " --shard " + shard).exit_code, 0);
  const auto merged = run_pipegrid(cd + " sweep " + kTwelve + " --out " + sharded + " --merge");
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_file(sharded + "/results.csv"), read_file(whole + "/results.csv"));
}

TEST(Sweep, ChangingTheSweepRerunsOnlyWhatChanged) {
  const std::string dir = fresh_dir("changed");
  fs::create_directories(dir);
  fs::copy_file(PIPEGRID_TEST_DATA "/sweeps/job.toml", dir + "/job.toml");
  std::string sweep = read_file(kTwelve);
  std::ofstream(dir + "/sweep.toml") << sweep;
  const std::string cd = std::string("--help >/dev/null; cd ") + PIPEGRID_SOURCE_DIR + " && " + PIPEGRID_BINARY;
  ASSERT_EQ(run_pipegrid(cd + " sweep " + dir + "/sweep.toml --out " + dir + "/out").exit_code, 0);
  // The last configuration's p2p mode changes from rendezvous to async; the other eleven stay.
  sweep.replace(sweep.rfind("\"rendezvous\""), 12, "\"async\"");
  std::ofstream(dir + "/sweep.toml") << sweep;
  const auto again = run_pipegrid(cd + " sweep " + dir + "/sweep.toml --out " + dir + "/out");
  EXPECT_NE(again.err.find("12 configurations, 11 already done, 1 ran"), std::string::npos) << again.err;
  EXPECT_EQ(statuses(dir + "/out/results.csv").size(), 12u);
}

TEST(Sweep, BadSweepFilesAreNamedByLine) {
  const std::string dir = fresh_dir("bad");
  fs::create_directories(dir);
  std::ofstream(dir + "/unknown.toml") << "[axes]\n\"parallel.ppp\" = [1, 2]\n";
  std::ofstream(dir + "/zip.toml") << "[[zip]]\n\"parallel.pp\" = [1, 2]\n\"parallel.dp\" = [1]\n";
  std::ofstream(dir + "/empty.toml") << "[axes]\n\"parallel.pp\" = []\n";
  const auto error = [&](const std::string& file) { return run_pipegrid("sweep " + dir + "/" + file + " --out " + dir + "/out").err; };
  EXPECT_EQ(error("unknown.toml"), "pipegrid: error: " + dir + "/unknown.toml:2:18: parallel.ppp: unknown key\n");
  EXPECT_EQ(error("zip.toml"),
            "pipegrid: error: " + dir + "/zip.toml:2:17: parallel.pp: 2 values where this zip group's other lists have 1\n");
  EXPECT_EQ(error("empty.toml"), "pipegrid: error: " + dir + "/empty.toml:2:17: parallel.pp: expected a non-empty list of values\n");
  EXPECT_EQ(run_pipegrid("sweep " + kTwelve + " --out " + dir + "/out --shard 3/3").err,
            "pipegrid: error: --shard 3/3: expected I/K with 0 <= I < K <= 1000000\n");
}

}  // namespace
}  // namespace pipegrid
