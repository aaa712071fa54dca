// Fuzzes the HTML report (sim/report/report.h) on a run directory made of the input: the input split at
// lines "@@" into trace.csv, deadlock.json, summary.json, links.csv and lesson.json (an empty part
// leaves that file out), written to a scratch directory, then report_html of it. InputError is the
// expected rejection. Also checked: a page is one whole document, nothing from the files escapes into
// markup (no script element, however the files spell it), and the same files give the same bytes.
#include <array>
#include <filesystem>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "sim/report/report.h"

using namespace pipegrid;

namespace {

constexpr std::array<const char*, 5> kFiles = {"trace.csv", "deadlock.json", "summary.json", "links.csv", "lesson.json"};

std::string run_dir(std::string_view input) {
  const std::string dir = fuzz::scratch_dir() + "/run";
  std::filesystem::create_directories(dir);
  for (const char* name : kFiles) std::filesystem::remove(dir + "/" + name);
  std::size_t at = 0;
  for (const char* name : kFiles) {
    if (at > input.size()) break;
    std::size_t end = input.find("\n@@\n", at);
    if (end == std::string_view::npos) end = input.size();
    if (end > at) fuzz::write_scratch(std::string("run/") + name, input.substr(at, end - at));
    at = end + 4;
  }
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string dir = run_dir(fuzz::text_of(data, size));
  std::string page;
  try {
    page = report::report_html(dir);
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
    return 0;
  }
  fuzz::accepted("a page of " + std::to_string(page.size()) + " bytes");
  fuzz::check(page.starts_with("<!DOCTYPE html>\n") && page.ends_with("</html>\n"), "a page that is not one document");
  fuzz::check(page.find("<script") == std::string::npos, "a script element in the page");
  fuzz::check(report::report_html(dir) == page, "the same files give another page");
  return 0;
}
