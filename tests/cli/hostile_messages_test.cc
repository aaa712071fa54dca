// The one error line of exit code 2 when the input is odd rather than wrong in its rules: a NUL, a
// byte order mark, a value megabytes long, a name the command line does not know, a directory where a
// file belongs. The line names the input and the rule whatever the bytes were (common/message_text.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::run_pipegrid;

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "messages-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

void expect_refused(const std::string& args, const std::string& message) {
  const auto r = run_pipegrid(args);
  EXPECT_EQ(r.exit_code, 2) << args;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(r.err, "pipegrid: error: " + message + "\n") << args;
}

TEST(HostileMessages, ANulInACellIsShownEscapedBeforeTheRule) {
  using namespace std::string_literals;
  const std::string csv = temp_file("nul.csv", "0F0,0B0\n1F0,1\0" "B0\n"s);
  expect_refused("check " + csv, csv + ":2:2: '1\\0B0': expected <stage><F|B|I|W><microbatch> such as 2F0, or a pair "
                                       "such as (0F7;7B3)");
}

TEST(HostileMessages, AValueOfMegabytesIsCutInTheMessage) {
  const std::string csv = temp_file("huge-cell.csv", "0F0,0B0\n" + std::string(10'000'000, 'x') + "\n");
  const auto r = run_pipegrid("check " + csv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(" expected")),
            "pipegrid: error: " + csv + ":2:1: '" + std::string(80, 'x') + "…(10000000 bytes)':");
  EXPECT_LT(r.err.size(), 1000u);
  expect_refused("schedule --schedule 1f1b --pp " + std::string(100'000, '9') + " --microbatches 4",
                 "--pp " + std::string(80, '9') + "…(100000 bytes): must be at most 2147483647");
}

TEST(HostileMessages, AByteOrderMarkBeforeACommentLineIsSkipped) {
  const std::string csv = temp_file("bom.csv", "\xEF\xBB\xBF# 1F1B on two ranks, saved by an editor that marks UTF-8\n"
                                               "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
  const auto r = run_pipegrid("check " + csv + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // It reads as the same file without the mark (its name aside).
  const std::string plain = temp_file("no-bom.csv", "# 1F1B on two ranks\n0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n");
  const auto same = run_pipegrid("check " + plain + " --format json");
  EXPECT_EQ(same.exit_code, 0);
  auto marked = nlohmann::json::parse(r.out), unmarked = nlohmann::json::parse(same.out);
  marked.erase("schedule"), unmarked.erase("schedule");
  EXPECT_EQ(marked, unmarked);
  EXPECT_EQ(marked["makespan"], 9);  // 1F1B, p = 2, m = 2, F = 1, B = 2: (m + p - 1) x (F + B)
  // In TOML too (toml++ skips it; the screen before it as well).
  const std::string toml = temp_file("bom.toml", "\xEF\xBB\xBF# marked\n[sim]\ncommand = \"schedule\"\nschedule = "
                                                 "\"1f1b\"\n[parallel]\npp = 2\nmicrobatches = 2\n");
  const auto run = run_pipegrid("run " + toml);
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(HostileMessages, AnUnknownCommandIsNamed) {
  const auto r = run_pipegrid("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pipegrid: error: frobnicate: unknown command; the commands are ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("simulate"), std::string::npos);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(HostileMessages, ADirectoryWhereAFileBelongsIsSaidSo) {
  const std::string dir = test_support::fresh_dir("messages-dir");
  expect_refused("check " + dir, dir + ": is a directory, expected a file");
  expect_refused("run " + dir, dir + ": is a directory, expected a file");
  expect_refused("sweep " + dir + " --out " + dir + "/out", dir + ": is a directory, expected a file");
  expect_refused("platform info " + dir, dir + ": is a directory, expected a file");
  expect_refused("simulate --platform " + dir + " --schedule 1f1b --pp 2 --microbatches 4",
                 "--platform " + dir + ": is a directory, expected a file");
  const std::string star = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
  expect_refused("simulate --platform " + star + " --pp 2 --microbatches 4 --schedule-file " + dir,
                 "--schedule-file " + dir + ": is a directory, expected a file");
  expect_refused("simulate --platform " + star + " --pp 2 --microbatches 4 --schedule 1f1b --gpu-file " + dir,
                 "--gpu-file " + dir + ": is a directory, expected a file");
  // In an experiment file, a path is taken from the file's folder (`.` is that folder).
  const std::string toml = temp_file("dir.toml", "[platform]\nfile = \".\"\n");
  const auto r = run_pipegrid("run " + toml);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: " + toml + ":2:8: [platform] file: is a directory, expected a file\n");
}

}  // namespace
}  // namespace pipegrid
