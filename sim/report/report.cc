#include "sim/report/report.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "common/input_error.h"
#include "common/version.h"
#include "sim/report/html_lesson.h"
#include "sim/report/html_page.h"
#include "sim/report/html_text.h"
#include "sim/report/report_run.h"
#include "sim/report/run_files.h"

namespace pipegrid::report {

namespace {

namespace fs = std::filesystem;

std::string folder_name(const std::string& dir) {
  const std::string name = fs::path(dir).lexically_normal().filename().string();
  return name.empty() || name == "." ? "this directory" : name;
}

std::string footer(const std::vector<std::string>& files) {
  return fmt::format("Made by <code>pipegrid report</code> (pipegrid {}) from {}. One file: no script, no external "
                     "resources; it opens offline.",
                     kPipegridVersion, escape(fmt::format("{}", fmt::join(files, ", "))));
}

std::string run_page(const RunFiles& files) {
  const RunReport run = run_report(files, 2, "run");
  std::string title = files.lesson ? lesson_title(*files.lesson) : run.title;
  if (title.empty()) title = run.deadlocked ? "Deadlocked run: " + folder_name(files.dir) : folder_name(files.dir);
  std::string subtitle = run.outcome;
  if (files.lesson && !run.title.empty()) subtitle = run.title + (subtitle.empty() ? "" : " \u2014 " + subtitle);
  return page_html(title, subtitle, run.body, footer(run.files));
}

std::string outcome_card(const char* what, const RunReport& run, const char* css) {
  return fmt::format("<div class=\"card {}\"><div class=\"what\">{}</div><div class=\"outcome\">{}</div><p>{}</p></div>\n",
                     css, what, escape(run.outcome.empty() ? "no result recorded" : run.outcome), escape(run.title));
}

// A pitfall's directory (spec §5): broken/ and fixed/, each a run's output with lesson.json.
std::string pitfall_page(const RunFiles& top) {
  const RunFiles broken = read_run_files(top.path("broken")), fixed = read_run_files(top.path("fixed"));
  if (top.empty() && broken.empty() && fixed.empty())
    throw InputError(fmt::format("{}: broken/ and fixed/ hold none of {}", top.dir, kReportFiles));
  const auto& lesson = top.lesson ? top.lesson : broken.lesson ? broken.lesson : fixed.lesson;
  const RunReport b = run_report(broken, 3, "broken"), f = run_report(fixed, 3, "fixed");
  std::string body;
  if (lesson) body += section_html(2, "The lesson", lesson_html(*lesson));
  body += "<div class=\"outcomes\">\n" + outcome_card("broken", b, "broken") + outcome_card("fixed", f, "fixed") + "</div>\n";
  const auto run_section = [](const char* what, const RunReport& run) {
    const std::string shown = run.body.empty() ? "<p class=\"note\">This folder holds none of the files.</p>\n" : run.body;
    return section_html(2, std::string(what) + (run.outcome.empty() ? "" : ": " + run.outcome), shown);
  };
  body += run_section("Broken", b) + run_section("Fixed", f);
  std::vector<std::string> files;
  for (const auto& [prefix, run] : {std::pair{"broken/", &b}, {"fixed/", &f}})
    for (const std::string& name : run->files) files.push_back(prefix + name);
  const std::string title = lesson ? lesson_title(*lesson) : "Broken and fixed: " + folder_name(top.dir);
  return page_html(title.empty() ? folder_name(top.dir) : title, "the broken setup and its fix", body, footer(files));
}

}  // namespace

std::string report_html(const std::string& dir) {
  const RunFiles files = read_run_files(dir);
  std::error_code error;
  if (fs::is_directory(files.path("broken"), error) && fs::is_directory(files.path("fixed"), error))
    return pitfall_page(files);
  if (files.empty()) throw InputError(fmt::format("{}: holds none of {}", files.dir, kReportFiles));
  return run_page(files);
}

std::string write_report(const std::string& dir) {
  const std::string page = report_html(dir);
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  path += "/report.html";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) throw InputError(fmt::format("{}: cannot be written", path));
  return path;
}

}  // namespace pipegrid::report
