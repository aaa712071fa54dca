// A run's folder, in the process: files written whole or not at all, the lock that keeps a second
// writer out, what a new run removes of an earlier one's (and what it never touches), status.json.
// What the command line makes of them is tests/cli/output_folder_cli_test.cc.
#include "sim/output/output_folder.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

#include "common/fd_output.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"

#include "temp_files.h"

namespace pipegrid::output {
namespace {

using test_support::fresh_dir;
using test_support::read_file;

namespace fs = std::filesystem;

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

RunIdentity me() { return {getpid(), {"pipegrid", "simulate", "--out", "DIR"}}; }
std::vector<std::string> no_inputs() { return {}; }

TEST(AtomicFile, IsThereWholeOnceCommittedAndUnderItsTemporaryUntilThen) {
  const std::string dir = fresh_dir("atomic");
  AtomicFile file(dir + "/trace.csv");
  fmt::print(file.file(), "gpu,host\n");
  file.stream() << "0,";
  file.write("gpu0\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"trace.csv." + std::to_string(getpid()) + ".tmp"});
  file.commit();
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"trace.csv"});
  EXPECT_EQ(read_file(dir + "/trace.csv"), "gpu,host\n0,gpu0\n");  // the three ways in, in the order written
}

TEST(AtomicFile, NotCommittedLeavesNothingAndTheEarlierFileAsItWas) {
  const std::string dir = fresh_dir("uncommitted");
  std::ofstream(dir + "/summary.json") << "earlier";
  {
    AtomicFile file(dir + "/summary.json");
    file.write("half of a new one");
  }
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"summary.json"});
  EXPECT_EQ(read_file(dir + "/summary.json"), "earlier");
}

TEST(AtomicFile, AFailedRenameIsAnIoErrorNamingTheFile) {
  const std::string dir = fresh_dir("rename");
  fs::create_directories(dir + "/links.csv/inside");  // a folder in the way: rename(2) refuses
  AtomicFile file(dir + "/links.csv");
  file.write("link\n");
  try {
    file.commit();
    FAIL() << "committed over a folder";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + "/links.csv: ", 0), 0u) << e.what();
  }
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"links.csv"});  // the folder, and no temporary
}

TEST(FdOutput, KeepsTheReasonOfTheFirstFailedWrite) {
  const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  FdOutput out(fd);
  out.write("a result\n");
  EXPECT_FALSE(out.flush());
  EXPECT_EQ(out.error(), ENOSPC);
  close(fd);
}

TEST(AtomicFile, TemporariesAreKnownByName) {
  EXPECT_TRUE(is_temporary_of("trace.csv.123.tmp", "trace.csv"));
  EXPECT_FALSE(is_temporary_of("trace.csv.tmp", "trace.csv"));
  EXPECT_FALSE(is_temporary_of("trace.csv.old.tmp", "trace.csv"));
  EXPECT_FALSE(is_temporary_of("trace.csv.123.tmp", "trace.json"));
  EXPECT_FALSE(is_temporary_of("xtrace.csv.123.tmp", "trace.csv"));
}

TEST(OutputFolder, RemovesAnEarlierRunsFilesAndNothingElse) {
  const std::string dir = fresh_dir("earlier");
  for (const char* name : {"summary.json", "links.csv", "trace.csv", "trace.csv.99999.tmp", "status.json.interrupted",
                           "report.html", "platform.xml"})
    std::ofstream(dir + "/" + name) << "earlier run";
  // A user's own files, and those a sweep or a pitfall writes around its runs.
  for (const char* name : {"notes.txt", "summary.json.bak", "experiment.toml", "lesson.json", "inputs.json",
                           "stdout.json", "stderr.txt", "results.csv"})
    std::ofstream(dir + "/" + name) << "not a run's";
  {
    OutputFolder folder(dir, no_inputs, me());
    EXPECT_EQ(names_in(dir), (std::vector<std::string>{".lock", "experiment.toml", "inputs.json", "lesson.json",
                                                       "notes.txt", "results.csv", "status.json", "stderr.txt",
                                                       "stdout.json", "summary.json.bak"}));
    EXPECT_EQ(read_status(dir)->name(), "running");
    folder.finish(3);
  }
  const auto status = read_status(dir);
  ASSERT_TRUE(status && status->status);
  EXPECT_EQ(status->name(), "deadlock");
  EXPECT_EQ((*status->status)["exit_code"], 3);
  EXPECT_EQ((*status->status)["pid"], getpid());
  EXPECT_EQ((*status->status)["command"], nlohmann::json(me().command));
  EXPECT_EQ(read_file(dir + "/notes.txt"), "not a run's");
  EXPECT_EQ(read_file(dir + "/.lock"), std::to_string(getpid()) + "\n");
}

TEST(OutputFolder, ASecondWriterIsRefusedNamingTheFirst) {
  const std::string dir = fresh_dir("second");
  OutputFolder first(dir, no_inputs, me());
  // flock(2) locks belong to an open file: a second opening, even in this process, is refused.
  try {
    OutputFolder second(dir, no_inputs, me());
    FAIL() << "two writers in one folder";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--out " + dir + ": another pipegrid run (pid " + std::to_string(getpid()) + ") is writing there");
  }
  EXPECT_EQ(read_status(dir)->name(), "running");  // the first run's, untouched
}

TEST(OutputFolder, TheLockGoesWithTheRun) {
  const std::string dir = fresh_dir("released");
  { OutputFolder first(dir, no_inputs, me()); }
  EXPECT_NO_THROW({ OutputFolder again(dir, no_inputs, me()); });
}

TEST(OutputFolder, AnInputAmongTheOutputsIsRefusedAndNothingIsTouched) {
  const std::string dir = fresh_dir("input");
  std::ofstream(dir + "/schedule.csv") << "0F0,0B0\n";
  std::ofstream(dir + "/summary.json") << "earlier";
  // The same file by another path: compared as files, not as names.
  const std::string input = dir + "/../" + fs::path(dir).filename().string() + "/schedule.csv";
  try {
    OutputFolder folder(
        dir,
        [&] {
          return std::vector<std::string>{"elsewhere.csv", input};
        },
        me());
    FAIL() << "an input among the outputs";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), input + ": an input of this command is also one of its outputs, " + dir +
                                         "/schedule.csv: choose another --out than " + dir);
  }
  EXPECT_EQ(read_file(dir + "/schedule.csv"), "0F0,0B0\n");
  EXPECT_EQ(read_file(dir + "/summary.json"), "earlier");
  EXPECT_FALSE(fs::exists(dir + "/status.json"));
}

TEST(RunStatus, ExitCodesAndOutcomes) {
  EXPECT_EQ(outcome_of_exit_code(0), "complete");
  EXPECT_EQ(outcome_of_exit_code(3), "deadlock");
  EXPECT_EQ(outcome_of_exit_code(4), "platform-failure");
  EXPECT_EQ(outcome_of_exit_code(130), "interrupted");
  EXPECT_EQ(outcome_of_exit_code(143), "interrupted");
  for (int code : {2, 70, 74}) EXPECT_EQ(outcome_of_exit_code(code), "error") << code;
  for (const char* done : {"complete", "deadlock", "platform-failure", "error"}) EXPECT_TRUE(is_finished(done));
  for (const char* not_done : {"running", "interrupted", "unreadable"}) EXPECT_FALSE(is_finished(not_done));
  const nlohmann::json interrupted = interrupted_status(me(), SIGTERM);
  EXPECT_EQ(interrupted["status"], "interrupted");
  EXPECT_EQ(interrupted["signal"], "SIGTERM");
  EXPECT_EQ(interrupted["exit_code"], 143);
}

TEST(RunStatus, AStatusThatIsNotOneReadsAsUnreadable) {
  const std::string dir = fresh_dir("unreadable");
  EXPECT_FALSE(read_status(dir).has_value());
  std::ofstream(dir + "/status.json") << "{\"status\": ";
  EXPECT_EQ(read_status(dir)->name(), "unreadable");
  EXPECT_EQ(read_status(dir)->unreadable, "not valid JSON");
}

}  // namespace
}  // namespace pipegrid::output
