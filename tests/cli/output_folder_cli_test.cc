// A run's --out folder as a user meets it (issue 33): one run per folder, an earlier run's files gone
// before a new one writes, no input overwritten, write errors as exit 74, and SIGINT, SIGTERM and
// SIGKILL leaving a folder that says what happened — never a file cut mid-row under its final name.
// Conditions are waited for (a status, a temporary with rows in it), never a moment on the clock.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
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

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
const std::string kShortRun = "simulate --platform " + kStar + " --schedule 1f1b --pp 2 --microbatches 4";
const std::string kDeadlock = kShortRun + " --p2p rendezvous --comm-plan blocking-calls";

// A run of several seconds here whose trace grows as it goes (192 GPUs, one traced per pipeline
// rank, 8192 micro-batches): interrupted once its trace has rows, long before it ends.
std::vector<std::string> long_run(const std::string& out) {
  return {"simulate", "--preset", "dgx-a100", "--nodes", "24", "--tp", "8", "--pp", "6", "--dp", "4",
          "--microbatches", "8192", "--model", "gpt-7.5b", "--schedule", "1f1b", "--trace", "pipeline",
          "--out", out};
}

pid_t spawn_pipegrid(const std::vector<std::string>& args, const std::string& out_file, const std::string& err_file) {
  std::vector<std::string> words = {PIPEGRID_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, PIPEGRID_BINARY, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  EXPECT_EQ(spawned, 0);
  return pid;
}

// The shell's view of how it ended: the exit code, or 128 + the signal that killed it.
int wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Polls `condition` for up to a minute: an event, not a duration.
bool eventually(const std::function<bool()>& condition) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < limit) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string status_of(const std::string& dir) {
  const nlohmann::json status = nlohmann::json::parse(read_file(dir + "/status.json"), nullptr, false);
  return status.is_object() ? status.value("status", "") : "";
}

// Running, with trace rows already in its temporary: mid-run, mid-file.
bool writing_its_trace(const std::string& dir) {
  if (status_of(dir) != "running") return false;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("trace.csv.") && name.ends_with(".tmp") && entry.file_size(error) > 0) return true;
  }
  return false;
}

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".tmp") || name.ends_with(".interrupted")) names.push_back(name);
  }
  return names;
}

// Every CSV of the folder ends its last row, and every row has the header's fields.
void expect_whole_csvs(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".csv") continue;
    const std::string text = read_file(entry.path().string());
    ASSERT_FALSE(text.empty()) << entry.path();
    EXPECT_EQ(text.back(), '\n') << entry.path();
    std::istringstream lines(text);
    std::string header, row;
    std::getline(lines, header);
    const auto fields = std::count(header.begin(), header.end(), ',');
    for (int n = 2; std::getline(lines, row); ++n)
      ASSERT_EQ(std::count(row.begin(), row.end(), ','), fields) << entry.path() << ":" << n;
  }
}

// `sh -c COMMAND` as given (its own redirections), stderr captured.
test_support::CommandResult shell(const std::string& command, const std::string& dir) {
  const std::string err = dir + "/shell.err";
  const int status = std::system(("/bin/bash -c '" + command + "' 2>" + err).c_str());
  test_support::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err);
  fs::remove(err);
  return result;
}

TEST(WriteErrors, AResultThatCannotReachStdoutIsExit74) {
  const std::string dir = fresh_dir("dev-full");
  const std::string bin = PIPEGRID_BINARY;
  const std::string line = "pipegrid: error: stdout: No space left on device\n";
  for (const std::string& command : {bin + " " + kShortRun, bin + " platform gen --preset dgx-a100 --nodes 4",
                                     bin + " schedule --schedule 1f1b --pp 4 --microbatches 8 --format csv"}) {
    const auto full = shell(command + " >/dev/full", dir);
    EXPECT_EQ(full.exit_code, 74) << command;
    EXPECT_EQ(full.err, line) << command;
  }
}

TEST(WriteErrors, AnOutputFileThatCannotBeWrittenIsExit74AndLeftOut) {
  // At most 2048 bytes per file (bash's ulimit -f counts KiB), SIGXFSZ ignored: a write past it fails
  // with EFBIG. status.json fits; trace.json, 4.7 kB here, does not.
  const std::string dir = fresh_dir("too-large"), out = dir + "/out";
  const auto run = shell("ulimit -f 2; trap \"\" XFSZ; exec " + std::string(PIPEGRID_BINARY) + " " + kShortRun +
                             " --out " + out + " >/dev/null",
                         dir);
  EXPECT_EQ(run.exit_code, 74);
  EXPECT_EQ(run.err.rfind("pipegrid: error: " + out + "/", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(": File too large\n"), std::string::npos) << run.err;
  EXPECT_EQ(status_of(out), "error");
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/status.json"))["exit_code"], 74);
  EXPECT_TRUE(leftovers(out).empty());
  EXPECT_FALSE(fs::exists(out + "/trace.json"));
  expect_whole_csvs(out);
}

TEST(WriteErrors, AClosedPipeEndsTheCommandQuietly) {
  // As `seq 1 1000000 | head -1`: SIGPIPE's default action, 141 in the shell, nothing on stderr. 3.5 MB
  // of CSV cannot all fit in the pipe before head has gone.
  const std::string dir = fresh_dir("pipe");
  const std::string err = dir + "/err";
  const auto piped = shell(std::string(PIPEGRID_BINARY) +
                               " schedule --schedule 1f1b --pp 64 --microbatches 4096 --format csv 2>" + err +
                               " | head -1 >/dev/null; exit ${PIPESTATUS[0]}",
                           dir);
  EXPECT_EQ(piped.exit_code, 141);
  EXPECT_EQ(read_file(err), "");
}

TEST(OneRunPerFolder, ADeadlockNeverSitsBesideAnEarlierRunsSummary) {
  const std::string out = fresh_dir("replaced");
  ASSERT_EQ(run_pipegrid(kShortRun + " --out " + out).exit_code, 0);
  ASSERT_TRUE(fs::exists(out + "/summary.json"));
  ASSERT_TRUE(fs::exists(out + "/links.csv"));
  std::ofstream(out + "/notes.txt") << "my own notes";
  EXPECT_EQ(run_pipegrid(kDeadlock + " --out " + out).exit_code, 3);
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  EXPECT_FALSE(fs::exists(out + "/links.csv"));
  EXPECT_TRUE(fs::exists(out + "/deadlock.json"));
  EXPECT_EQ(read_file(out + "/notes.txt"), "my own notes");
  EXPECT_EQ(status_of(out), "deadlock");
  // The page is the deadlock's alone, and a finished one: no warning.
  const auto report = run_pipegrid("report " + out);
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "");
  const std::string page = read_file(out + "/report.html");
  EXPECT_NE(page.find("Deadlock at t = "), std::string::npos);
  EXPECT_EQ(page.find(">Summary<"), std::string::npos);
  EXPECT_EQ(page.find("links.csv"), std::string::npos);
  EXPECT_EQ(page.find("did not finish"), std::string::npos);
}

TEST(OneRunPerFolder, AnInputIsNeverOverwritten) {
  const std::string out = fresh_dir("input");
  ASSERT_EQ(run_pipegrid("schedule --schedule 1f1b --pp 2 --microbatches 4 --out " + out).exit_code, 0);
  const std::string file = out + "/schedule.csv", before = read_file(file);
  const auto check = run_pipegrid("check " + file + " --out " + out);
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_EQ(check.err, "pipegrid: error: " + file + ": an input of this command is also one of its outputs, " + file +
                           ": choose another --out than " + out + "\n");
  EXPECT_EQ(read_file(file), before);
  EXPECT_EQ(status_of(out), "complete");  // the schedule's run, untouched
}

TEST(OneRunPerFolder, PerturbNeverOverwritesThePlatformItReads) {
  const std::string out = fresh_dir("perturb");
  ASSERT_EQ(run_pipegrid("platform perturb " + kStar + " --slow-gpu gpu1=0.5@1 --out " + out).exit_code, 0);
  const std::string platform = out + "/platform.xml", before = read_file(platform);
  const auto again = run_pipegrid("platform perturb " + platform + " --slow-gpu gpu0=0.5@1 --out " + out);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err, "pipegrid: error: " + platform + ": an input of this command is also one of its outputs, " +
                           platform + ": choose another --out than " + out + "\n");
  EXPECT_EQ(read_file(platform), before);
  EXPECT_FALSE(fs::exists(out + "/perturb-gpu0-speed.txt"));
}

TEST(OneRunPerFolder, ASecondWriterGetsExit2NamingTheFirst) {
  const std::string dir = fresh_dir("second"), out = dir + "/out";
  const pid_t first = spawn_pipegrid(long_run(out), dir + "/first.out", dir + "/first.err");
  ASSERT_TRUE(eventually([&] { return status_of(out) == "running"; })) << read_file(dir + "/first.err");
  const auto second = run_pipegrid(kShortRun + " --out " + out);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_EQ(second.err, "pipegrid: error: --out " + out + ": another pipegrid run (pid " + std::to_string(first) +
                            ") is writing there\n");
  kill(first, SIGTERM);
  EXPECT_EQ(wait_for(first), 143);
}

TEST(OneRunPerFolder, AKilledHoldersLockDiesWithIt) {
  const std::string dir = fresh_dir("sigkill"), out = dir + "/out";
  const pid_t first = spawn_pipegrid(long_run(out), dir + "/first.out", dir + "/first.err");
  ASSERT_TRUE(eventually([&] { return writing_its_trace(out); })) << read_file(dir + "/first.err");
  kill(first, SIGKILL);
  EXPECT_EQ(wait_for(first), 128 + SIGKILL);
  // SIGKILL leaves what no handler could tidy: the status says running, the temporaries are there.
  EXPECT_EQ(status_of(out), "running");
  EXPECT_FALSE(leftovers(out).empty());
  const auto report = run_pipegrid("report " + out);
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_NE(report.err.find("pipegrid: warning: " + out + ": " + out + "/status.json says running (pid " +
                            std::to_string(first) + ")"),
            std::string::npos)
      << report.err;
  // The next run takes the folder and clears what the killed one left.
  const auto next = run_pipegrid(kShortRun + " --out " + out);
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(status_of(out), "complete");
  EXPECT_TRUE(leftovers(out).empty());
  EXPECT_FALSE(fs::exists(out + "/report.html")) << "the killed run's page, left beside the new run";
}

void interrupt_a_long_run(int signal, const std::string& name) {
  const std::string dir = fresh_dir(std::string("interrupted-") + name), out = dir + "/out";
  const pid_t run = spawn_pipegrid(long_run(out), dir + "/run.out", dir + "/run.err");
  ASSERT_TRUE(eventually([&] { return writing_its_trace(out); })) << read_file(dir + "/run.err");
  kill(run, signal);
  EXPECT_EQ(wait_for(run), 128 + signal);
  EXPECT_EQ(read_file(dir + "/run.err"), "pipegrid: interrupted by " + name + "; " + out + "/status.json says so\n");
  const nlohmann::json status = nlohmann::json::parse(read_file(out + "/status.json"));
  EXPECT_EQ(status["status"], "interrupted");
  EXPECT_EQ(status["signal"], name);
  EXPECT_EQ(status["exit_code"], 128 + signal);
  EXPECT_EQ(status["pid"], run);
  EXPECT_TRUE(leftovers(out).empty());
  EXPECT_FALSE(fs::exists(out + "/trace.csv"));  // cut short: never put in place
  expect_whole_csvs(out);
  const auto report = run_pipegrid("report " + out);
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.err, "pipegrid: warning: " + out + ": the run was interrupted by " + name + " (exit " +
                            std::to_string(128 + signal) +
                            ") before it ended: the files here are those it had finished, the others were never "
                            "written\n");
  EXPECT_NE(read_file(out + "/report.html").find("This run did not finish"), std::string::npos);
}

TEST(Interrupted, SigintEndsARunWith130AndAStatusThatSaysSo) { interrupt_a_long_run(SIGINT, "SIGINT"); }

TEST(Interrupted, SigtermEndsARunWith143AndAStatusThatSaysSo) { interrupt_a_long_run(SIGTERM, "SIGTERM"); }

TEST(Interrupted, AFolderFromBeforeStatusFilesStillRenders) {
  const std::string out = fresh_dir("legacy");
  ASSERT_EQ(run_pipegrid(kShortRun + " --out " + out).exit_code, 0);
  fs::remove(out + "/status.json");
  const auto report = run_pipegrid("report " + out);
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_NE(report.err.find("pipegrid: warning: " + out + ": no status.json here"), std::string::npos) << report.err;
  EXPECT_NE(read_file(out + "/report.html").find(">Summary<"), std::string::npos);
}

}  // namespace
}  // namespace pipegrid
