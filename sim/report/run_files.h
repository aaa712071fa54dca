// What a run's output directory holds, for the HTML report: the JSON files parsed, the TOML kept as
// text, the CSV files only noted (they are read as they are drawn). Nothing else in the directory is
// looked at, so that the same files give the same page.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/output/output_files.h"
#include "sim/output/run_status.h"

namespace pipegrid::report {

struct RunFiles {
  std::string dir;  // as the user gave it, without a trailing '/': error messages name files under it
  std::optional<nlohmann::json> summary;    // summary.json: simulate's, or schedule/check's
  std::optional<nlohmann::json> deadlock;   // deadlock.json (spec §1, or the executor's first format)
  std::optional<nlohmann::json> lesson;     // lesson.json (spec §4)
  std::optional<std::string> experiment;    // experiment.toml, as text
  bool trace = false;                       // trace.csv
  bool links = false;                       // links.csv
  /// status.json: whether the run that wrote the folder finished (status_warning.h); not drawn.
  std::optional<output::RecordedStatus> status;

  std::string path(output::OutputFile file) const { return output::output_path(dir, file); }
  std::string folder(const std::string& name) const { return dir + "/" + name; }  // a pitfall's broken/, fixed/
  /// Whether it holds `file`, one of those the report reads (OutputFileSpec::report_reads).
  bool has(output::OutputFile file) const;
  /// A run's results: what the page's sections are drawn from.
  bool has_results() const { return summary || deadlock || trace || links; }
  /// Nothing to draw a page from. A status alone is something: a run that stopped before it wrote a
  /// result still gets a page saying so.
  bool empty() const { return !has_results() && !lesson && !experiment && !status; }
};

/// PATH's text, nothing when it is absent. InputError when it is not a regular file (a FIFO would block
/// the report for ever), is larger than `max_bytes` or cannot be read.
std::optional<std::string> read_text_file(const std::string& path, std::uintmax_t max_bytes);
/// PATH parsed as JSON (at most 64 MiB), nothing when it is absent. InputError "PATH: not valid JSON: …".
std::optional<nlohmann::json> read_json_file(const std::string& path);

/// Reads what `dir` holds. InputError when `dir` does not exist or is not a directory, or one of its files is not a
/// regular file, is larger than the report reads (JSON 64 MiB, TOML 1 MiB) or is not valid JSON.
RunFiles read_run_files(const std::string& dir);

}  // namespace pipegrid::report
