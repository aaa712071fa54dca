// `pipegrid report DIR` and `--report` as a user runs them: what the page says of a run, a deadlock in
// either deadlock.json format, a lesson and a pitfall's two runs; the bar cap; escaping; the same
// bytes from the same files; and the one-line errors (exit 2). tests/report/browser_test.py loads the
// pages in Chromium.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";
const std::string kRing = PIPEGRID_TEST_DATA "/report/ring-deadlock";
// 1F1B on two ranks whose sends wait for their receivers, each rank sending first: a deadlock.
const std::string kDeadlocking = "simulate --platform " + kStar +
                                 " --schedule 1f1b --pp 2 --microbatches 4 --p2p rendezvous --comm-plan blocking-calls";
const std::string kHealthy = "simulate --platform " + kStar + " --schedule 1f1b --pp 4 --microbatches 8";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::string report_of(const std::string& dir) {
  const auto r = run_pipegrid("report " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + dir + "/report.html\n");
  return read_file(dir + "/report.html");
}

// Self-contained: nothing the browser would fetch, nothing it would run.
void expect_self_contained(const std::string& page) {
  EXPECT_EQ(count(page, "<script"), 0u);
  EXPECT_EQ(count(page, "src="), 0u);
  EXPECT_EQ(count(page, "href="), 0u);
  EXPECT_EQ(count(page, "@import"), 0u);
  EXPECT_EQ(count(page, "url(http"), 0u);
}

TEST(ReportCli, ASimulationsPageShowsItsFiguresChartAndLinksAndIsTheSameTwice) {
  const std::string dir = test_support::fresh_dir("report-healthy");
  ASSERT_EQ(run_pipegrid(kHealthy + " --out " + dir).exit_code, 0);
  const std::string page = report_of(dir);
  const auto summary = nlohmann::json::parse(read_file(dir + "/summary.json"));
  // The makespan as the text report prints it (format_number: up to 10 significant digits).
  EXPECT_NE(page.find(fmt::format("{:.10g} s", summary["makespan"].get<double>())), std::string::npos);
  EXPECT_NE(page.find(fmt::format("bubble fraction {:.4f}", summary["bubble_fraction"].get<double>())), std::string::npos);
  EXPECT_NE(page.find(summary["pace"]["explanation"].get<std::string>()), std::string::npos);
  // One F and one B bar per micro-batch on each of the 4 ranks, each with its tooltip.
  EXPECT_EQ(count(page, "<title>F, stage"), 4u * 8);
  EXPECT_EQ(count(page, "<title>B, stage"), 4u * 8);
  EXPECT_NE(page.find("All 8 links"), std::string::npos);  // star-4gpu: 4 ports, UP and DOWN
  EXPECT_EQ(page.find("\u00b7c"), std::string::npos);       // no chunk column: no chunk labels
  expect_self_contained(page);
  EXPECT_EQ(report_of(dir), page);
}

TEST(ReportCli, TheExecutorsDeadlockJsonGivesTheChainItsTextReportPrintsAndTheFix) {
  const std::string dir = test_support::fresh_dir("report-deadlock");
  const auto run = run_pipegrid(kDeadlocking + " --out " + dir);
  ASSERT_EQ(run.exit_code, 3);
  // The text report's first line: "deadlock at 4.002 s: <chain>".
  const std::string first = run.err.substr(0, run.err.find('\n'));
  const std::string chain = first.substr(first.find(": ") + 2);
  const double time = nlohmann::json::parse(read_file(dir + "/deadlock.json"))["time"].get<double>();
  const std::string page = report_of(dir);
  EXPECT_NE(page.find(fmt::format("<h2>Deadlock at t = {:.10g} s</h2>", time)), std::string::npos);
  EXPECT_NE(page.find("<p class=\"chain\">" + chain + "</p>"), std::string::npos) << chain;
  // Both ranks send first: the shape the shared classifier names send-send, hatched and arrowed.
  EXPECT_NE(page.find("<span class=\"shape\">send-send</span>"), std::string::npos);
  EXPECT_EQ(count(page, "-hatch)\"/>"), 2u);
  EXPECT_EQ(count(page, "<path class=\"wait\""), 2u);
  expect_self_contained(page);
}

TEST(ReportCli, TheSharedDeadlockFormatGivesItsChainHintAndOneArrowPerWait) {
  const std::string dir = test_support::fresh_dir("report-ring");
  for (const char* name : {"deadlock.json", "trace.csv"}) fs::copy_file(kRing + "/" + name, dir + "/" + name);
  const std::string page = report_of(dir);
  const auto deadlock = nlohmann::json::parse(read_file(dir + "/deadlock.json"));
  EXPECT_NE(page.find("<h2>Deadlock at t = 6 s</h2>"), std::string::npos);
  EXPECT_NE(page.find(deadlock["chain"].get<std::string>()), std::string::npos);
  EXPECT_NE(page.find("odd ranks receive first &lt;now&gt;"), std::string::npos);  // hint.text, escaped
  EXPECT_EQ(count(page, "-hatch)\"/>"), 4u);
  EXPECT_EQ(count(page, "<path class=\"wait\""), 4u);
  // Hatching starts at blocked_since: rank 2 blocked at 5 s, on a chart 1.25 × 6 s wide drawn over
  // 1040 px from x = 104, its row 68 px below rank 1's (the first 24 px down), its bar 5 px into it.
  const double x = 104 + 5 / 7.5 * 1040;
  EXPECT_NE(page.find(fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"22.0\" fill=\"url(#run-hatch)\"/>",
                                  x, 24 + 2 * 68 + 5.0, 104 + 1040 - x)),
            std::string::npos);
}

TEST(ReportCli, ChunkAndDirectionColumnsLabelTheBars) {
  const std::string dir = test_support::fresh_dir("report-chunks");
  std::ofstream(dir + "/trace.csv")
      << "gpu,host,node,tp,dp,pp,track,kind,stage,microbatch,peer,bytes,start,end,chunk,direction\n"
         "0,rank 0,0,0,0,0,compute,F,0,3,,0,0,10,0,down\n"
         "0,rank 0,0,0,0,0,compute,B,1,3,,0,10,20,1,up\n";
  const std::string page = report_of(dir);
  EXPECT_NE(page.find(">\u2193F3\u00b7c0</text>"), std::string::npos);
  EXPECT_NE(page.find(">\u2191B3\u00b7c1</text>"), std::string::npos);
  EXPECT_NE(page.find("chunk 1 and up: lighter"), std::string::npos);
}

TEST(ReportCli, AHugeTraceIsDrawnUpToTheCapAndThePageSaysSo) {
  // 10000 forwards of 1 s one after another: the first 4000 start before t = 4000 s.
  const std::string dir = test_support::fresh_dir("report-huge");
  std::ofstream trace(dir + "/trace.csv");
  trace << "gpu,host,node,tp,dp,pp,track,kind,stage,microbatch,peer,bytes,start,end\n";
  for (int i = 0; i < 10000; ++i) trace << fmt::format("0,gpu0,0,0,0,0,compute,F,0,{},,0,{},{}\n", i, i, i + 1);
  trace.close();
  const std::string page = report_of(dir);
  EXPECT_EQ(count(page, "<title>F, stage"), 4000u);
  EXPECT_NE(page.find("This trace has 10000 bars on these rows; the chart draws the first 4000, up to t = 4000 s"),
            std::string::npos);
  EXPECT_LT(page.size(), 600'000u);
}

TEST(ReportCli, ALessonsTextIsEscapedAndAPitfallsPageShowsBothRuns) {
  const std::string dir = test_support::fresh_dir("report-pitfall");
  ASSERT_EQ(run_pipegrid(kDeadlocking + " --out " + dir + "/broken").exit_code, 3);
  ASSERT_EQ(run_pipegrid(kDeadlocking + " --p2p async --out " + dir + "/fixed").exit_code, 0);
  std::ofstream(dir + "/broken/lesson.json")
      << R"({"name": "rendezvous-1f1b", "title": "1F1B with <rendezvous> sends", "what_you_see": "exit 3",
             "why": "Both send first.\n\nA `send` waits <script>alert(1)</script>.", "fix": "--p2p async",
             "source": "PyTorch `schedules.py`, <b>"})";
  const std::string page = report_of(dir);
  EXPECT_NE(page.find("<title>1F1B with &lt;rendezvous&gt; sends</title>"), std::string::npos);
  EXPECT_NE(page.find("<p>Both send first.</p>\n<p>A <code>send</code> waits &lt;script&gt;alert(1)&lt;/script&gt;.</p>"),
            std::string::npos);
  EXPECT_EQ(count(page, "<script"), 0u);
  EXPECT_NE(page.find("<b>Source:</b> PyTorch <code>schedules.py</code>, &lt;b&gt;</p>"), std::string::npos);
  EXPECT_NE(page.find("<h2>Broken: deadlock at t = 4.002 s</h2>"), std::string::npos);
  const auto fixed = nlohmann::json::parse(read_file(dir + "/fixed/summary.json"));
  EXPECT_NE(page.find(fmt::format("<h2>Fixed: makespan {:.10g} s", fixed["makespan"].get<double>())), std::string::npos);
  // Two charts on one page, their ids apart.
  EXPECT_NE(page.find("id=\"broken-hatch\""), std::string::npos);
  EXPECT_EQ(count(page, "<svg class=\"gantt\""), 2u);
}

TEST(ReportCli, ALessonsCommandAndOutputStayLinesAndEveryFixHasItsRun) {
  // `pipegrid pitfalls` writes fixed-NAME/ for each of several fixes; a fence in "What you see" is a
  // command and its output, line by line.
  const std::string dir = test_support::fresh_dir("report-fixes");
  ASSERT_EQ(run_pipegrid(kDeadlocking + " --out " + dir + "/broken").exit_code, 3);
  ASSERT_EQ(run_pipegrid(kDeadlocking + " --p2p async --out " + dir + "/fixed-async").exit_code, 0);
  ASSERT_EQ(run_pipegrid(kDeadlocking + " --comm-plan megatron --out " + dir + "/fixed-batched").exit_code, 0);
  std::ofstream(dir + "/broken/lesson.json")
      << R"({"name": "n", "title": "t", "what_you_see": "```\n$ pipegrid check a<b.csv\n  rank 0\n```\nExit 3.",
             "why": "w", "fix": "f", "source": "s"})";
  const std::string page = report_of(dir);
  EXPECT_NE(page.find("<pre>$ pipegrid check a&lt;b.csv\n  rank 0\n</pre>\n<p>Exit 3.</p>"), std::string::npos);
  EXPECT_NE(page.find("<h2>Fixed (async): makespan"), std::string::npos);
  EXPECT_NE(page.find("<h2>Fixed (batched): makespan"), std::string::npos);
  EXPECT_EQ(count(page, "<svg class=\"gantt\""), 3u);
}

TEST(ReportCli, ReportOnARunWritesThePageAfterIt) {
  const std::string dir = test_support::fresh_dir("report-flag");
  const auto r = run_pipegrid(kDeadlocking + " --out " + dir + " --report");
  EXPECT_EQ(r.exit_code, 3);  // the run's code stands
  EXPECT_NE(r.err.find("wrote " + dir + "/report.html\n"), std::string::npos);
  EXPECT_NE(read_file(dir + "/report.html").find("Deadlock at t = 4.002 s"), std::string::npos);
}

TEST(ReportCli, ReportWithoutAnOutputDirectoryIsRefusedBeforeRunning) {
  const auto r = run_pipegrid(kHealthy + " --report");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --report: needs an output directory (--out DIR or [output] out)\n");
  EXPECT_EQ(r.out, "");
  const auto all = run_pipegrid("schedule --schedule all --pp 2 --microbatches 4 --out /tmp/unused --report");
  EXPECT_EQ(all.err, "pipegrid: error: --report: reports one run; --schedule all compares many (choose one with "
                     "--schedule NAME)\n");
}

TEST(ReportCli, ADirectoryThatIsMissingOrHoldsNothingIsOneLine) {
  const std::string dir = test_support::fresh_dir("report-empty");
  const auto missing = run_pipegrid("report " + dir + "/nowhere");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "pipegrid: error: " + dir + "/nowhere: no such directory\n");
  const auto empty = run_pipegrid("report " + dir);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err, "pipegrid: error: " + dir +
                           ": holds none of summary.json, trace.csv, deadlock.json, links.csv, experiment.toml, "
                           "lesson.json\n");
  EXPECT_FALSE(fs::exists(dir + "/report.html"));
}

TEST(ReportCli, NamesHoldingACommaAQuoteOrALineBreakAreQuotedAndReadBack) {
  // SimGrid takes any id; pipegrid once wrote them into trace.csv and links.csv unquoted, and the
  // report then failed to read its own files. RFC 4180 quoting (common/csv_text.h) both ways.
  std::string xml = read_file(kStar);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"gpu0", "\"gpu,0"},
                                 {"\"gpu1", "\"gpu&quot;1&quot;"},
                                 {"\"gpu2", "\"gpu&#10;2"}})
    for (auto at = xml.find(from); at != std::string::npos; at = xml.find(from, at + to.size()))
      xml.replace(at, from.size(), to);
  const std::string dir = test_support::fresh_dir("report-odd-names");
  const std::string platform = dir + "/../odd-names-" + std::to_string(getpid()) + ".xml";
  std::ofstream(platform) << xml;
  const auto run = run_pipegrid("simulate --platform " + platform +
                                " --schedule 1f1b --pp 4 --microbatches 2 --p2p-bytes 1e6 --link-timeline --out " + dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The first rows as RFC 4180 writes them: a comma or a line break quoted, a quote doubled.
  const std::string trace = read_file(dir + "/trace.csv");
  EXPECT_NE(trace.find("\n0,\"gpu,0\",0,0,0,0,compute,F,0,0,,0,0,1,0,\n"), std::string::npos);
  EXPECT_NE(trace.find(",comm,p2p,0,0,\"gpu\"\"1\"\"\",1000000,"), std::string::npos);
  EXPECT_NE(trace.find("\n2,\"gpu\n2\",0,0,0,2,compute,F,2,0,"), std::string::npos);
  EXPECT_NE(read_file(dir + "/links.csv").find("\n\"gpu\n2-port\",port,1000000000,0.001,SPLITDUPLEX,"),
            std::string::npos);
  EXPECT_NE(read_file(dir + "/links_timeline.csv").find("\n\"gpu\"\"1\"\"-port\",UP,"), std::string::npos);
  // trace.json stays JSON, the names in it whole.
  const auto events = nlohmann::json::parse(read_file(dir + "/trace.json"))["traceEvents"];
  EXPECT_EQ(events[3]["args"]["name"], "gpu\"1\" compute (tp 0, dp 0, pp 1)");
  const std::string page = report_of(dir);
  EXPECT_NE(page.find("gpu,0-port"), std::string::npos);
  EXPECT_NE(page.find("gpu&quot;1&quot;-port"), std::string::npos);
  EXPECT_NE(page.find("gpu\n2-port"), std::string::npos);
  EXPECT_EQ(count(page, "<title>F, stage"), 4u * 2);  // every rank's bars read from trace.csv
  fs::remove(platform);
}

TEST(ReportCli, AMalformedFileIsNamedInOneLine) {
  const std::string dir = test_support::fresh_dir("report-malformed");
  std::ofstream(dir + "/summary.json") << "{";
  const auto json = run_pipegrid("report " + dir);
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(json.err.rfind("pipegrid: error: " + dir + "/summary.json: not valid JSON: ", 0), 0u) << json.err;
  EXPECT_EQ(count(json.err, "\n"), 1u);
  fs::remove(dir + "/summary.json");
  std::ofstream(dir + "/trace.csv") << "gpu,host,tp,dp,pp,track,kind,stage,microbatch,end\n";
  const auto csv = run_pipegrid("report " + dir);
  EXPECT_EQ(csv.exit_code, 2);
  EXPECT_EQ(csv.err, "pipegrid: error: " + dir +
                         "/trace.csv: no column 'start' (columns: gpu,host,tp,dp,pp,track,kind,stage,microbatch,end)\n");
  std::ofstream(dir + "/trace.csv") << "gpu,host,tp,dp,pp,track,kind,stage,microbatch,start,end\n0,g,0,0,0,compute,F,0,0,x,1\n";
  EXPECT_EQ(run_pipegrid("report " + dir).err,
            "pipegrid: error: " + dir + "/trace.csv: line 2: start: not a number: 'x'\n");
}

}  // namespace
}  // namespace pipegrid
