// `pipegrid report DIR`: one self-contained HTML page, DIR/report.html, from what a run's output
// directory holds (summary.json, trace.csv, deadlock.json, links.csv, experiment.toml, lesson.json),
// or, for a pitfall's directory with broken/ and fixed/, one page with the lesson and both runs.
// The page depends on those files alone: the same directory gives the same bytes.
#pragma once

#include <string>

namespace pipegrid::report {

/// The page. InputError "DIR: no such directory", "DIR: not a directory", "DIR: holds none of summary.json, …", or the one
/// line naming a malformed file.
std::string report_html(const std::string& dir);

/// Writes report_html(dir) to DIR/report.html, whole or not at all, and returns that path. IoError
/// "DIR/report.html: …" if it cannot.
std::string write_report(const std::string& dir);

}  // namespace pipegrid::report
