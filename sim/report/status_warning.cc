#include "sim/report/status_warning.h"

#include <fmt/format.h>

#include "sim/report/html_page.h"
#include "sim/report/html_text.h"

namespace pipegrid::report {

namespace {

std::string text_field(const nlohmann::json& status, const char* key) {
  const auto it = status.find(key);
  if (it == status.end()) return "?";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

std::string status_warning(const RunFiles& files) {
  const std::string status_file = files.path(output::OutputFile::Status);
  if (!files.status) {
    if (!files.has_results()) return "";
    return "no status.json here: the folder was written before pipegrid kept one, or not by pipegrid, so whether "
           "its run finished is not known";
  }
  const std::string name = files.status->name();
  if (name == "complete" || name == "deadlock" || name == "platform-failure") return "";
  if (name == "unreadable")
    return fmt::format("{} cannot be read ({}), so whether the run finished is not known", status_file,
                       files.status->unreadable);
  const nlohmann::json& status = *files.status->status;
  if (name == "running")
    return fmt::format("{} says running (pid {}): the run is still going, or was killed before it could say how it "
                       "ended (SIGKILL, a crash, the machine going down); the files here are those it had finished",
                       status_file, text_field(status, "pid"));
  if (name == "interrupted")
    return fmt::format("the run was interrupted by {} (exit {}) before it ended: the files here are those it had "
                       "finished, the others were never written",
                       text_field(status, "signal"), text_field(status, "exit_code"));
  if (name == "error")
    return fmt::format("the run ended in an error (exit {}){}", text_field(status, "exit_code"),
                       status.contains("message") ? ": " + text_field(status, "message") : std::string());
  return fmt::format("{} says {}, which is not an outcome pipegrid writes", status_file, name);
}

std::string status_warning_html(const std::string& warning, int level) {
  if (warning.empty()) return "";
  // The deadlock's red rule: a page that is not the whole story is marked as loudly.
  return section_html(level, "This run did not finish", "<p>" + escape(warning) + ".</p>\n", "deadlock");
}

}  // namespace pipegrid::report
