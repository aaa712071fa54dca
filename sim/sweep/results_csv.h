// results.csv: one row per configuration of a sweep, written as runs finish, read back to resume.
#pragma once

#include <span>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::sweep {

/// The metrics of a finished run (summary.json's), empty where the run did not produce them: the
/// catalogue's columns of results.csv after id, status and message (sim/output/output_files.h).
/// Nothing measured on the host goes here, so that the same sweep gives the same file byte for byte;
/// each run's wall time is in its directory (runs/ID/wall_seconds).
std::span<const std::string_view> metric_columns();

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

/// Writes rows (with the header) to `path`, whole or not at all (sim/output/atomic_file.h); IoError.
void write_results(const std::string& path, const std::vector<std::string>& axes, const std::vector<ResultRow>& rows);

}  // namespace pipegrid::sweep
