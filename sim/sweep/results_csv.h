// results.csv: one row per configuration of a sweep, written as runs finish, read back to resume.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::sweep {

/// The metrics of a finished run (summary.json's), empty where the run did not produce them. Nothing
/// measured on the host goes here, so that the same sweep gives the same file byte for byte; each
/// run's wall time is in its directory (runs/ID/wall_seconds).
inline constexpr std::array<std::string_view, 7> kMetricColumns = {
    "makespan", "first_step", "steady_step", "bubble_fraction", "tflops_per_gpu", "mfu", "samples_per_second"};

/// A run's outcome. Status: ok, deadlock (exit 3), invalid (exit 2), timeout, error (anything else).
struct ResultRow {
  std::string id;
  std::vector<std::string> values;  // the axes', in the sweep's order
  std::string status;
  std::string message;
  std::map<std::string, std::string> metrics;
};

/// The header: id, the axes, status, message, the metrics.
std::string results_header(const std::vector<std::string>& axes);
std::string results_line(const ResultRow& row);

/// Rows of an existing results.csv with these axes (none if the file is missing). A file whose header
/// does not match — the sweep's axes changed — yields no rows: everything reruns.
std::vector<ResultRow> read_results(const std::string& path, const std::vector<std::string>& axes);

/// Writes rows (with the header) to `path` through a temporary file and a rename.
void write_results(const std::string& path, const std::vector<std::string>& axes, const std::vector<ResultRow>& rows);

}  // namespace pipegrid::sweep
