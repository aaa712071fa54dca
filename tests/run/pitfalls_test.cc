// The catalogue of pitfalls (experiments/pitfalls/), through `pipegrid pitfalls NAME --out DIR` as a
// student runs it: every setup ends with the exit code its lesson.toml expects, and the figure each
// README's "Check it by hand" derives — the cycle of ranks, makespan, bubble fraction, pace, peak
// activations, bytes of activations — is what the run wrote (its stderr's first line, deadlock.json,
// summary.json). Lessons skipped-backward, microbatch-count-mismatch and collective-order-mismatch
// need the checker's unmatched-receive reports and --grad-sync-order (issue 12, items (a) and (b)).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "command_runner.h"
#include "processes.h"
#include "sim/run/lesson.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::read_file;
using test_support::run_pipegrid;

const fs::path kCatalogue = fs::path(PIPEGRID_SOURCE_DIR) / "experiments" / "pitfalls";

// A lesson run into a fresh temporary folder, removed afterwards.
class LessonRun {
 public:
  explicit LessonRun(const std::string& name, const std::string& flags = "") {
    char dir_template[] = "/tmp/pipegrid-pitfalls-XXXXXX";
    dir_ = mkdtemp(dir_template);
    result_ = run_pipegrid("pitfalls " + name + " --out " + dir_.string() + flags);
  }
  ~LessonRun() { fs::remove_all(dir_); }
  LessonRun(const LessonRun&) = delete;
  LessonRun& operator=(const LessonRun&) = delete;

  const test_support::CommandResult& result() const { return result_; }
  json summary(const std::string& setup) const {
    return json::parse(read_file((dir_ / setup / "summary.json").string()));
  }
  std::string first_stderr_line(const std::string& setup) const {
    const std::string text = read_file((dir_ / setup / "stderr.txt").string());
    return text.substr(0, text.find('\n'));
  }
  bool has(const std::string& setup, const std::string& file) const { return fs::exists(dir_ / setup / file); }
  std::string file(const std::string& path) const { return read_file((dir_ / path).string()); }
  json deadlock(const std::string& setup) const {
    return json::parse(read_file((dir_ / setup / "deadlock.json").string()));
  }

 private:
  fs::path dir_;
  test_support::CommandResult result_;
};

// The ranks of a deadlock's first line, in the order it names them, without the closing repeat:
// "rank 0 waits for rank 3 …, which waits for rank 2 …, which waits for rank 0 …" → {0, 3, 2}.
std::vector<int> cycle_of_text(const std::string& line) {
  std::vector<int> ranks;
  const std::regex rank(R"(rank (\d+))");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), rank); it != std::sregex_iterator(); ++it)
    ranks.push_back(std::stoi((*it)[1]));
  if (ranks.size() > 1 && ranks.back() == ranks.front()) ranks.pop_back();
  return ranks;
}

// The cycle of a static deadlock, from the text every engine prints, and from deadlock.json where the
// checker writes one (issue 12 (a)): both must give the same ranks.
void expect_cycle(const LessonRun& run, const std::string& setup, const std::vector<int>& ranks) {
  EXPECT_EQ(cycle_of_text(run.first_stderr_line(setup)), ranks) << run.first_stderr_line(setup);
  if (!run.has(setup, "deadlock.json")) return;
  std::vector<int> from_json;
  const json deadlock = run.deadlock(setup);  // kept: a range-for over a temporary's member dangles
  for (const json& wait : deadlock["cycle"]) from_json.push_back(wait["rank"].get<int>());
  EXPECT_EQ(from_json, ranks);
}

// An open chain (issue 12 (a)): the blocked ranks, each waiting for the next, the last for `finished`,
// a rank that ended its step; whichever blocked rank the chain starts from.
void expect_open_chain(const json& d, const std::set<int>& blocked, int finished) {
  EXPECT_TRUE(d["open"].get<bool>());
  EXPECT_EQ(d["hint"]["shape"], "unmatched-receive");
  const json& chain = d["cycle"];
  ASSERT_FALSE(chain.empty());
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) EXPECT_EQ(chain[i]["waits_for"]["rank"], chain[i + 1]["rank"]);
  EXPECT_EQ(chain.back()["waits_for"]["rank"].get<int>(), finished);
  std::set<int> blocked_ranks;
  for (const json& wait : d["blocked"]) blocked_ranks.insert(wait["rank"].get<int>());
  EXPECT_EQ(blocked_ranks, blocked);
}

void expect_all_as_expected(const LessonRun& run, int runs) {
  EXPECT_EQ(run.result().exit_code, 0) << run.result().out << run.result().err;
  EXPECT_NE(run.result().out.find("pitfalls: " + std::to_string(runs) + " of " + std::to_string(runs) +
                                  " runs as lesson.toml expects"),
            std::string::npos)
      << run.result().out;
}

void expect_timing(const json& summary, double makespan, double bubble) {
  EXPECT_NEAR(summary["makespan"].get<double>(), makespan, 1e-9);
  EXPECT_NEAR(summary["bubble_fraction"].get<double>(), bubble, 1e-9);
}

std::vector<int> peaks(const json& summary) {
  std::vector<int> out;
  for (const json& rank : summary["ranks"]) out.push_back(rank["peak_activations"].get<int>());
  return out;
}

TEST(Pitfalls, ListsEveryLessonByNameAndTitleSorted) {
  const auto r = run_pipegrid("pitfalls");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<run::Lesson> lessons = run::read_catalogue(kCatalogue);
  ASSERT_GE(lessons.size(), 12u);
  std::string expected;
  std::size_t width = 0;
  for (const auto& l : lessons) width = std::max(width, l.name.size());
  for (const auto& l : lessons) expected += l.name + std::string(width - l.name.size() + 2, ' ') + l.title + "\n";
  EXPECT_EQ(r.out, expected);
  for (std::size_t i = 1; i < lessons.size(); ++i) EXPECT_LT(lessons[i - 1].name, lessons[i].name);
}

TEST(Pitfalls, EveryReadmeHasItsSectionsAndItsTitle) {
  for (const run::Lesson& lesson : run::read_catalogue(kCatalogue)) {
    const std::string readme = read_file((lesson.dir / "README.md").string());
    EXPECT_EQ(readme.substr(0, readme.find('\n')), "# " + lesson.title) << lesson.name;
    EXPECT_NE(readme.find("\n## Check it by hand\n"), std::string::npos) << lesson.name;
    const run::LessonText text = run::read_lesson_text(lesson.dir / "README.md");
    EXPECT_FALSE(text.source.empty()) << lesson.name;
    EXPECT_EQ(text.what_you_see.find("<!--"), std::string::npos) << lesson.name;
    EXPECT_EQ(text.why.find("Source:"), std::string::npos) << lesson.name;
  }
}

TEST(Pitfalls, AnUnknownLessonIsAnInputErrorNamingTheLessons) {
  std::string names;
  for (const run::Lesson& l : run::read_catalogue(kCatalogue)) names += (names.empty() ? "" : ", ") + l.name;
  const auto r = run_pipegrid("pitfalls no-such-lesson --out /tmp/unused");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: pitfalls no-such-lesson: no such lesson; the lessons are " + names + "\n");
}

TEST(Pitfalls, RunningALessonNeedsAnOutputDirectory) {
  const auto r = run_pipegrid("pitfalls too-few-microbatches");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: pitfalls too-few-microbatches: needs --out DIR for the runs' files\n");
}

TEST(Pitfalls, AnOutputDirectoryThatCannotBeMadeIsRefusedBeforeAnythingRuns) {
  const auto r = run_pipegrid("pitfalls too-few-microbatches --out /dev/null/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipegrid: error: --out /dev/null/x: cannot create broken: Not a directory\n");
}

// A setup that does not end as its lesson.toml says makes the command exit 1, naming both codes.
TEST(Pitfalls, AnOutcomeOtherThanExpectedIsExitOne) {
  char dir_template[] = "/tmp/pipegrid-catalogue-XXXXXX";
  const fs::path catalogue = mkdtemp(dir_template);
  const fs::path lesson = catalogue / "wrong-expectation";
  fs::create_directories(lesson);
  fs::copy_file(kCatalogue / "send-recv-order-mismatch" / "README.md", lesson / "README.md");
  fs::copy_file(kCatalogue / "send-recv-order-mismatch" / "broken.csv", lesson / "broken.csv");
  std::ofstream(lesson / "lesson.toml")
      << "title = \"t\"\nsummary = \"s\"\n[broken]\nargs = [\"check\", \"broken.csv\"]\n"
         "exit = 0\n[[fixed]]\nargs = [\"check\", \"broken.csv\"]\nexit = 3\n";
  const auto r = run_pipegrid("pitfalls wrong-expectation --catalogue " + catalogue.string() + " --out " +
                              (catalogue / "out").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("broken: exit 3, expected 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixed: exit 3, as expected\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pitfalls: 1 of 2 runs as lesson.toml expects"), std::string::npos) << r.out;
  const json lesson_json = json::parse(read_file((catalogue / "out" / "broken" / "lesson.json").string()));
  EXPECT_EQ(lesson_json["name"], "wrong-expectation");
  EXPECT_EQ(lesson_json["setup"], "broken");
  EXPECT_EQ(lesson_json["fix"], run::read_lesson_text(lesson / "README.md").fix);
  fs::remove_all(catalogue);
}

// A run still going at --timeout is killed and counts as not what the lesson expects. The setup is the
// Megatron-LM 1T step on 3072 GPUs, which takes about 40 s on the development machine.
TEST(Pitfalls, ARunPastItsTimeoutIsKilled) {
  char dir_template[] = "/tmp/pipegrid-catalogue-XXXXXX";
  const fs::path catalogue = mkdtemp(dir_template);
  const fs::path lesson = catalogue / "slow";
  fs::create_directories(lesson);
  fs::copy_file(kCatalogue / "too-few-microbatches" / "README.md", lesson / "README.md");
  const std::string platform = PIPEGRID_SOURCE_DIR "/platforms/superpod-a100-384node.xml";
  std::ofstream(lesson / "lesson.toml")
      << "title = \"t\"\nsummary = \"s\"\n[broken]\nargs = [\"simulate\", \"--platform\", \"" << platform
      << "\", \"--schedule\", \"1f1b\", \"--tp\", \"8\", \"--pp\", \"64\", \"--dp\", \"6\", \"--microbatches\", "
         "\"512\", \"--model\", \"gpt-1t\", \"--trace\", \"off\"]\nexit = 0\n[[fixed]]\nargs = [\"schedule\", "
         "\"--schedule\", \"1f1b\", \"--pp\", \"2\", \"--microbatches\", \"2\"]\nexit = 0\n";
  // 5 s: the broken run needs 25 s or more, the fixed one well under a second even under the
  // sanitizers on a loaded machine (0.5 s was not: CI's sanitized run of `schedule` took longer).
  const auto r = run_pipegrid("pitfalls slow --timeout 5 --catalogue " + catalogue.string() + " --out " +
                              (catalogue / "out").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("broken: killed after 5 s, expected exit 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixed: exit 0, as expected\n"), std::string::npos) << r.out;
  fs::remove_all(catalogue);
}

// The issue's lesson whose command recursed: every run of it runs the lesson again, each in a process
// of its own, each with the default 60 s timeout, until the outermost one's 3 s are up. Killing its
// child's group at the timeout ends the child; each deeper run then gets SIGTERM as its parent dies
// (PDEATHSIG) and passes it on to its own child's group: none is left, where killing the direct
// child alone left the chain below it running for a minute and more.
TEST(Pitfalls, ARecursingLessonKilledAtItsTimeoutLeavesNoProcessBehind) {
  char dir_template[] = "/tmp/pipegrid-catalogue-XXXXXX";
  const fs::path catalogue = mkdtemp(dir_template);
  const fs::path lesson = catalogue / "recurse";
  fs::create_directories(lesson);
  fs::copy_file(kCatalogue / "too-few-microbatches" / "README.md", lesson / "README.md");
  std::ofstream(lesson / "lesson.toml") << "title = \"t\"\nsummary = \"s\"\n[broken]\nargs = [\"pitfalls\", \"recurse\", "
                                           "\"--catalogue\", \"" << catalogue.string()
                                        << "\"]\nexit = 0\n[[fixed]]\nargs = [\"schedule\", \"--schedule\", \"1f1b\", \"--pp\", "
                                           "\"2\", \"--microbatches\", \"2\"]\nexit = 0\n";
  const auto r = run_pipegrid("pitfalls recurse --timeout 3 --catalogue " + catalogue.string() + " --out " +
                              (catalogue / "out").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("broken: killed after 3 s, expected exit 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixed: exit 0, as expected\n"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(catalogue / "out" / "broken" / "broken")) << "the lesson never recursed";
  // Every run of the chain names the catalogue on its command line.
  const bool none_left = test_support::eventually([&] { return test_support::processes_with(catalogue.string()).empty(); });
  EXPECT_TRUE(none_left) << test_support::processes_with(catalogue.string()).size() << " runs of the lesson left";
  test_support::kill_all_with(catalogue.string());
  fs::remove_all(catalogue);
}

TEST(Pitfalls, SendRecvOrderMismatch) {
  const LessonRun run("send-recv-order-mismatch");
  expect_all_as_expected(run, 2);
  expect_cycle(run, "broken", {0, 1});
  expect_timing(run.summary("fixed"), 9, 1.0 / 3);
}

TEST(Pitfalls, OneFOneBRendezvousSends) {
  const LessonRun run("1f1b-rendezvous-sends");
  expect_all_as_expected(run, 4);
  expect_cycle(run, "broken", {2, 3});
  for (const char* fixed : {"fixed-async", "fixed-batched", "fixed-odd-ranks-receive-first"})
    expect_timing(run.summary(fixed), 33, 3.0 / 11);
}

TEST(Pitfalls, InterleavedPerOpBatching) {
  const LessonRun run("interleaved-per-op-batching");
  expect_all_as_expected(run, 2);
  expect_cycle(run, "broken", {0, 3, 2, 1});
  expect_timing(run.summary("fixed"), 57, 9.0 / 57);
}

TEST(Pitfalls, InterleavedMicrobatchesNotAMultipleOfP) {
  const LessonRun run("interleaved-microbatches-not-multiple-of-p");
  expect_all_as_expected(run, 3);
  EXPECT_EQ(run.first_stderr_line("broken"), "pipegrid: error: broken.csv:3:21: 4B4 runs before its forward 4F4");
  const auto refused = run_pipegrid("schedule --schedule interleaved --pp 4 --microbatches 6");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "pipegrid: error: --microbatches 6: interleaved (Megatron's order) needs a multiple of "
            "--pp (4); 6 % 4 = 2\n");
  expect_timing(run.summary("fixed-multiple-of-p"), 57, 9.0 / 57);
  expect_timing(run.summary("fixed-groups"), 45, 9.0 / 45);
  EXPECT_EQ(peaks(run.summary("fixed-groups"))[0], 12);  // one group of N = m: every forward before a backward
}

// Needs the checker's unmatched-receive report (issue 12 (a)): before it, check refuses with exit 2.
TEST(Pitfalls, SkippedBackward) {
  const LessonRun run("skipped-backward");
  expect_all_as_expected(run, 2);
  ASSERT_TRUE(run.has("broken", "deadlock.json"));
  expect_open_chain(run.deadlock("broken"), {0}, 1);  // rank 0 at 0B2; rank 1 finished
  expect_timing(run.summary("fixed"), 18, 1.0 / 3);
}

// Needs the checker's unmatched-receive report (issue 12 (a)).
TEST(Pitfalls, MicrobatchCountMismatch) {
  const LessonRun run("microbatch-count-mismatch");
  expect_all_as_expected(run, 2);
  ASSERT_TRUE(run.has("broken", "deadlock.json"));
  expect_open_chain(run.deadlock("broken"), {0, 1}, 2);  // 0 at 0B3, 1 at 1B3; rank 2 finished
  expect_timing(run.summary("fixed"), 18, 1.0 / 3);
}

// Needs --grad-sync-order and the executor's collective-order report (issue 12 (b)).
TEST(Pitfalls, CollectiveOrderMismatch) {
  const LessonRun run("collective-order-mismatch");
  expect_all_as_expected(run, 3);
  ASSERT_TRUE(run.has("broken", "deadlock.json"));
  const json d = run.deadlock("broken");
  EXPECT_EQ(d["hint"]["shape"], "collective-order");
  std::vector<std::string> gpus;
  for (const json& wait : d["cycle"]) gpus.push_back(wait["gpu"].get<std::string>());
  ASSERT_EQ(gpus.size(), 4u);
  // gpu0 → gpu2 → gpu3 → gpu1 → gpu0, from whichever GPU the report starts.
  const std::vector<std::string> ring = {"gpu0", "gpu2", "gpu3", "gpu1"};
  const auto start = std::find(ring.begin(), ring.end(), gpus[0]) - ring.begin();
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(gpus[i], ring[(start + i) % 4]);
  // Megatron's order and the by-stage orders complete (exit 0, checked above); so does the crossed
  // order's failure to: no summary for it.
  EXPECT_FALSE(run.has("broken", "summary.json"));
}

TEST(Pitfalls, DualPipeRendezvousSends) {
  const LessonRun run("dualpipe-rendezvous-sends");
  expect_all_as_expected(run, 3);
  expect_cycle(run, "broken", {1, 2});
  for (const char* fixed : {"fixed-dualpipe-plan", "fixed-async"}) expect_timing(run.summary(fixed), 26, 2.0 / 26);
}

TEST(Pitfalls, TooFewMicrobatches) {
  const LessonRun run("too-few-microbatches");
  expect_all_as_expected(run, 2);
  expect_timing(run.summary("broken"), 45, 7.0 / 15);
  expect_timing(run.summary("fixed"), 117, 7.0 / 39);
}

TEST(Pitfalls, SlowStageSetsThePace) {
  const LessonRun run("slow-stage-sets-pace");
  expect_all_as_expected(run, 2);
  const json broken = run.summary("broken");
  expect_timing(broken, 15 * 3.6 + 12.6, 1 - 201.6 / (4 * 66.6));
  EXPECT_EQ(broken["pace"]["rank"], 3);
  EXPECT_NEAR(broken["pace"]["busy"].get<double>(), 16 * 3.6, 1e-9);
  EXPECT_NEAR(broken["pace"]["mean_busy"].get<double>(), 50.4, 1e-9);
  expect_timing(run.summary("fixed"), 19 * 3.15, 3.0 / 19);
}

TEST(Pitfalls, GPipeActivationMemory) {
  const LessonRun run("gpipe-activation-memory");
  expect_all_as_expected(run, 2);
  // One layer, one micro-batch: s·b·h·34 + 5·a·s²·b bytes; a stage of 8 layers.
  const double stage_bytes = 8.0 * (2048.0 * 4096 * 34 + 5.0 * 32 * 2048 * 2048);
  const json gpipe = run.summary("broken")["memory"], one_f_one_b = run.summary("fixed")["memory"];
  EXPECT_EQ(gpipe["over_capacity"], json::parse("[0, 1, 2, 3]"));
  EXPECT_EQ(one_f_one_b["over_capacity"], json::array());
  EXPECT_EQ(gpipe["ranks"][1]["activations"].get<double>(), 16 * stage_bytes);
  EXPECT_EQ(one_f_one_b["ranks"][1]["activations"].get<double>(), 3 * stage_bytes);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(gpipe["ranks"][r]["peak_activations"], 16);
    EXPECT_EQ(one_f_one_b["ranks"][r]["peak_activations"], 4 - r);
  }
  // The same operations and dependencies in another order: the same step time (to rounding).
  EXPECT_NEAR(run.summary("broken")["makespan"].get<double>(), run.summary("fixed")["makespan"].get<double>(), 1e-9);
}

TEST(Pitfalls, BatchNormAcrossMicrobatches) {
  const LessonRun run("batchnorm-cross-microbatch");
  expect_all_as_expected(run, 3);
  expect_cycle(run, "broken", {0, 1});
  expect_timing(run.summary("fixed-gpipe-batchnorm"), 4 * 8 * 3, 0.75);
  expect_timing(run.summary("fixed-layernorm"), 33, 3.0 / 11);
}

TEST(Pitfalls, ZeroBubbleMemory) {
  const LessonRun run("zero-bubble-memory");
  expect_all_as_expected(run, 3);
  const json one_f_one_b = run.summary("broken"), h1 = run.summary("fixed-zb-h1"), h2 = run.summary("fixed-zb-h2");
  expect_timing(one_f_one_b, 33, 9.0 / 33);
  EXPECT_EQ(peaks(one_f_one_b), (std::vector<int>{4, 3, 2, 1}));
  expect_timing(h1, 27, 3.0 / 27);
  EXPECT_EQ(h1["longest_rank_span"].get<double>(), 27);
  EXPECT_EQ(peaks(h1), (std::vector<int>{4, 4, 4, 4}));
  expect_timing(h2, 27, 3.0 / 27);
  EXPECT_EQ(h2["longest_rank_span"].get<double>(), 24);  // (p − 1)(F + I − 2W) = 0 idle inside a span
  EXPECT_EQ(peaks(h2), (std::vector<int>{7, 7, 7, 7}));
}

TEST(Pitfalls, ReportAndPlotGiveEachRunItsPicturesAndTheLessonOnePage) {
  const LessonRun run("1f1b-rendezvous-sends", " --report --plot");
  expect_all_as_expected(run, 4);
  const std::string png_magic = "\x89PNG\r\n\x1a\n";
  for (const char* setup : {"broken", "fixed-async", "fixed-batched", "fixed-odd-ranks-receive-first"}) {
    EXPECT_EQ(run.file(std::string(setup) + "/gantt.png").substr(0, 8), png_magic) << setup;
    EXPECT_TRUE(run.has(setup, "report.html")) << setup;
  }
  // Only the deadlocked run has a wait-for graph: there is no wait in the others.
  EXPECT_EQ(run.file("broken/wait-for.png").substr(0, 8), png_magic);
  EXPECT_FALSE(run.has("fixed-async", "wait-for.png"));
  const std::string page = run.file("report.html");
  EXPECT_NE(page.find("<h2>Broken: deadlock at t = 6 s</h2>"), std::string::npos);
  for (const char* fix : {"async", "batched", "odd-ranks-receive-first"})
    EXPECT_NE(page.find(std::string("<h2>Fixed (") + fix + "): makespan 33 s"), std::string::npos) << fix;
}

}  // namespace
}  // namespace pipegrid
