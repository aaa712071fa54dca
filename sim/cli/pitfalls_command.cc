#include "sim/cli/pitfalls_command.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/cli/child_process.h"
#include "sim/cli/gantt_plot.h"
#include "sim/cli/subcommand.h"
#include "sim/input/option_schema.h"
#include "sim/report/report.h"
#include "sim/run/lesson.h"

namespace pipegrid::cli {

namespace {

namespace fs = std::filesystem;

std::string path(const fs::path& dir, output::OutputFile file) { return output::output_path(dir.string(), file); }
using run::Lesson;
using run::LessonSetup;

fs::path catalogue_dir(const input::OptionValues& v) {
  if (v.has("catalogue")) return fs::path(v.text("catalogue"));
  // The catalogue of the checkout pipegrid was built from, as `run --plot` finds its scripts.
  return fs::path(PIPEGRID_SOURCE_DIR) / "experiments" / "pitfalls";
}

int list_lessons(const std::vector<Lesson>& lessons) {
  std::size_t width = 0;
  for (const Lesson& l : lessons) width = std::max(width, l.name.size());
  for (const Lesson& l : lessons) std::cout << fmt::format("{:<{}}  {}\n", l.name, width, l.title);
  return kExitOk;
}

// The first line a run printed that is not a log line (--log-level debug puts those first).
std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && !line.starts_with("[pipegrid:")) return line;
  return "";
}

struct RunContext {
  std::string binary;
  fs::path out;
  bool report = false;
  bool plot = false;
  double timeout = 60;
  std::string log_level;  // --log-level, passed on to every run
};

// Runs one setup into OUT/NAME and prints its outcome; true when it ended as lesson.toml expects.
bool run_setup(const Lesson& lesson, const LessonSetup& setup, const run::LessonText& text, const RunContext& ctx) {
  const fs::path dir = ctx.out / setup.name;
  // lesson.json first, so that a report the run itself writes finds it.
  output::write_atomically(path(dir, output::OutputFile::Lesson), run::lesson_json(lesson, setup, text));
  std::vector<std::string> args = setup.args;
  args.insert(args.end(), {"--out", dir.string(), "--log-level", ctx.log_level});
  // Every command a lesson runs (check, schedule, simulate, run) takes --report: the run writes its
  // own DIR/report.html, with lesson.json already there.
  if (ctx.report) args.emplace_back("--report");
  const ChildOutcome outcome = run_child({.binary = ctx.binary,
                                          .args = std::move(args),
                                          .cwd = lesson.dir,
                                          .out_file = dir / "stdout.txt",
                                          .err_file = dir / "stderr.txt",
                                          .timeout_seconds = ctx.timeout});
  const bool as_expected = !outcome.timed_out && outcome.exit_code == setup.expected_exit;
  std::string verdict;
  if (outcome.timed_out)
    verdict = fmt::format("killed after {} s, expected exit {}", ctx.timeout, setup.expected_exit);
  else if (as_expected)
    verdict = fmt::format("exit {}, as expected", outcome.exit_code);
  else
    verdict = fmt::format("exit {}, expected {}", outcome.exit_code, setup.expected_exit);
  std::cout << fmt::format("{}: {}\n  pipegrid {}\n", setup.name, verdict, fmt::join(setup.args, " "));
  for (const char* stream : {"stdout", "stderr"}) {
    const std::string line = first_line(dir / (std::string(stream) + ".txt"));
    if (!line.empty()) std::cout << fmt::format("  {}: {}\n", stream, line);
  }
  if (ctx.plot && fs::exists(path(dir, output::OutputFile::TraceCsv))) {
    const bool deadlocked = fs::exists(path(dir, output::OutputFile::Deadlock));
    const std::string why = draw_gantt_chart(path(dir, output::OutputFile::TraceCsv), path(dir, output::OutputFile::GanttPng),
                                             deadlocked ? (dir / "wait-for.png").string() : "");
    std::cout << (why.empty() ? fmt::format("  drew {}/gantt.png{}\n", setup.name, deadlocked ? " and wait-for.png" : "")
                              : fmt::format("  gantt.png: not drawn ({})\n", why));
  }
  return as_expected;
}

int run_lesson(const Lesson& lesson, const input::OptionValues& v) {
  if (!v.has("out")) throw InputError(fmt::format("pitfalls {}: needs --out DIR for the runs' files", lesson.name));
  const run::LessonText text = run::read_lesson_text(lesson.dir / "README.md");
  RunContext ctx;
  ctx.binary = self_binary();
  // Each run works in the lesson's folder (its setups name their files from there); DIR is made
  // absolute before, so it is where the user meant.
  ctx.out = fs::absolute(fs::path(v.text("out")));
  ctx.report = v.flag("report");
  ctx.plot = v.flag("plot");
  if (ctx.plot) check_gantt_plotter("DIR/*/gantt.png");
  ctx.timeout = v.number("timeout");
  ctx.log_level = v.text("log-level");
  std::vector<const LessonSetup*> setups = {&lesson.broken};
  for (const LessonSetup& f : lesson.fixed) setups.push_back(&f);
  // Every folder first, so that an --out that cannot hold them is refused before anything runs.
  for (const LessonSetup* setup : setups) {
    std::error_code error;
    fs::create_directories(ctx.out / setup->name, error);
    if (error)
      throw InputError(fmt::format("--out {}: cannot create {}: {}", v.text("out"), setup->name, error.message()));
  }
  std::cout << fmt::format("{}: {}\n", lesson.name, lesson.title);
  int matched = 0, runs = 0;
  for (const LessonSetup* setup : setups) {
    ++runs;
    if (run_setup(lesson, *setup, text, ctx)) ++matched;
  }
  std::cout << fmt::format("pitfalls: {} of {} runs as lesson.toml expects; files in {}\n", matched, runs,
                           v.text("out"));
  // The lesson's page: its explanation and the broken and fixed runs side by side.
  if (ctx.report) {
    report::write_report(ctx.out.string());
    std::cout << fmt::format("wrote {}\n", output::output_path(v.text("out"), output::OutputFile::ReportHtml));
  }
  return matched == runs ? kExitOk : kExitLessonMismatch;
}

int pitfalls(const input::OptionValues& v) {
  const fs::path catalogue = catalogue_dir(v);
  const std::vector<Lesson> lessons = run::read_catalogue(catalogue);
  if (!v.has("name")) return list_lessons(lessons);
  const std::string& name = v.text("name");
  for (const Lesson& lesson : lessons)
    if (lesson.name == name) return run_lesson(lesson, v);
  std::vector<std::string> names;
  for (const Lesson& l : lessons) names.push_back(l.name);
  throw InputError(fmt::format("pitfalls {}: no such lesson; the lessons are {}", name, fmt::join(names, ", ")));
}

}  // namespace

void add_pitfalls_command(CLI::App& app, std::function<int()>& run) {
  add_subcommand(app, run, input::Command::Pitfalls, "pitfalls",
                 "List the catalogue of pipeline pitfalls, or run one lesson's broken and fixed setups", pitfalls);
}

}  // namespace pipegrid::cli
