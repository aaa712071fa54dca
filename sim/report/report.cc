#include "sim/report/report.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "common/input_error.h"
#include "common/version.h"
#include "sim/output/atomic_file.h"
#include "sim/report/html_lesson.h"
#include "sim/report/html_plan.h"
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

// The fixed setups of a pitfall's directory: fixed/, or fixed-NAME/ for each of several fixes, sorted.
std::vector<std::string> fixed_folders(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if ((name == "fixed" || name.starts_with("fixed-")) && entry.is_directory(error)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A pitfall's directory (`pipegrid pitfalls NAME --out DIR`): broken/ and fixed/ (or fixed-NAME/, one
// per fix), each a run's output with lesson.json.
std::string pitfall_page(const RunFiles& top, const std::vector<std::string>& fixed_names) {
  const RunFiles broken = read_run_files(top.folder("broken"));
  std::vector<std::pair<std::string, RunFiles>> fixed;
  for (const std::string& name : fixed_names) fixed.emplace_back(name, read_run_files(top.folder(name)));
  const bool any_fixed = std::any_of(fixed.begin(), fixed.end(), [](const auto& f) { return !f.second.empty(); });
  if (top.empty() && broken.empty() && !any_fixed)
    throw InputError(fmt::format("{}: broken/ and fixed/ hold none of {}", top.dir, output::report_file_names()));
  auto lesson = top.lesson ? top.lesson : broken.lesson;
  for (const auto& f : fixed)
    if (!lesson) lesson = f.second.lesson;
  const RunReport b = run_report(broken, 3, "broken");
  std::vector<RunReport> f;
  for (const auto& [name, files] : fixed) f.push_back(run_report(files, 3, name));
  std::string body;
  if (lesson) body += section_html(2, "The lesson", lesson_html(*lesson));
  body += "<div class=\"outcomes\">\n" + outcome_card("broken", b, "broken");
  for (std::size_t i = 0; i < f.size(); ++i) body += outcome_card(fixed[i].first.c_str(), f[i], "fixed");
  body += "</div>\n";
  const auto run_section = [](const std::string& what, const RunReport& run) {
    const std::string shown = run.body.empty() ? "<p class=\"note\">This folder holds none of the files.</p>\n" : run.body;
    return section_html(2, what + (run.outcome.empty() ? "" : ": " + run.outcome), shown);
  };
  body += run_section("Broken", b);
  for (std::size_t i = 0; i < f.size(); ++i)
    body += run_section(fixed[i].first == "fixed" ? "Fixed" : "Fixed (" + fixed[i].first.substr(6) + ")", f[i]);
  std::vector<std::string> files;
  for (const std::string& name : b.files) files.push_back("broken/" + name);
  for (std::size_t i = 0; i < f.size(); ++i)
    for (const std::string& name : f[i].files) files.push_back(fixed[i].first + "/" + name);
  const std::string title = lesson ? lesson_title(*lesson) : "Broken and fixed: " + folder_name(top.dir);
  return page_html(title.empty() ? folder_name(top.dir) : title, "the broken setup and its fix", body, footer(files));
}

}  // namespace

std::string report_html(const std::string& dir) {
  if (is_plan_folder(dir)) return plan_page(dir);
  const RunFiles files = read_run_files(dir);
  std::error_code error;
  if (fs::is_directory(files.folder("broken"), error))
    if (const std::vector<std::string> fixed = fixed_folders(files.dir); !fixed.empty())
      return pitfall_page(files, fixed);
  if (files.empty()) throw InputError(fmt::format("{}: holds none of {}", files.dir, output::report_file_names()));
  return run_page(files);
}

std::string write_report(const std::string& dir) {
  const std::string page = report_html(dir);
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  path = output::output_path(path, output::OutputFile::ReportHtml);
  output::write_atomically(path, page);
  return path;
}

}  // namespace pipegrid::report
