// Every file a pipegrid run writes, in one table: its name under the output folder, what it holds,
// its columns when it is a CSV, and the version of its format (kept here as metadata; the files do
// not carry it). The writers take names and columns from here, `pipegrid report` reads by them, the
// command line lists what a run wrote with them, and a new run into a folder removes by them what an
// earlier one left there. A new output file is one row here plus its writer.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::output {

enum class OutputFile {
  Status,          // status.json
  Summary,         // summary.json
  TraceCsv,        // trace.csv
  TraceJson,       // trace.json
  TraceJsonGz,     // trace.json.gz
  Deadlock,        // deadlock.json
  Failure,         // failure.json
  Links,           // links.csv
  LinksTimeline,   // links_timeline.csv
  Experiment,      // experiment.toml
  Lesson,          // lesson.json
  ScheduleCsv,     // schedule.csv
  PlatformXml,     // platform.xml
  GanttPng,        // gantt.png
  ReportHtml,      // report.html
  Results,         // a sweep's results.csv
  RunInputs,       // a sweep run's inputs.json
  RunStdout,       // a sweep run's stdout.json
  PlanCsv,         // a plan's plan.csv
  PlanJson,        // a plan's plan.json
  BestToml,        // a plan's best.toml
  ParetoPng,       // a plan's pareto.png
  SimulateToml,    // a plan's simulate.toml
};

struct OutputFileSpec {
  OutputFile id;
  std::string_view name;  // under the output folder
  std::string_view what;  // one line: what it holds, and who writes it
  /// A CSV's header, in order; empty for other files. results.csv has the sweep's axes between `id`
  /// and `status` (sweep/results_csv.h).
  std::span<const std::string_view> columns;
  int format_version = 1;     // raised when a column or key changes meaning or goes
  bool report_reads = false;  // `pipegrid report` draws its page from it
  /// A run (simulate, schedule, check, run) writes it into its --out folder, so a new run there first
  /// removes the one an earlier run left (output_folder.h). Not the files a sweep or a pitfall writes
  /// around its runs (experiment.toml, lesson.json, inputs.json, stdout.json, results.csv).
  bool run_writes = false;
};

/// Every output file, in the order the report names them.
std::span<const OutputFileSpec> output_files();
const OutputFileSpec& output_file(OutputFile id);

/// DIR/NAME of the file.
std::string output_path(const std::string& dir, OutputFile id);
/// A CSV's header line, newline included.
std::string csv_header(OutputFile id);
/// The names of the files `pipegrid report` reads, comma-separated: what an empty folder is told.
std::string report_file_names();
/// The files a run writes into its folder (OutputFileSpec::run_writes).
std::vector<OutputFile> run_files();

}  // namespace pipegrid::output
