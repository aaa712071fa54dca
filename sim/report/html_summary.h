// The summary of a run as HTML: its key figures (makespan, bubble, TFLOP/s per GPU, MFU, the pace)
// and its per-rank table (busy, idle, exposed communication), from simulate's summary.json or
// schedule/check's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipegrid::report {

/// The figures as tiles, then the pace's explanation. Only the figures the summary has, except that a
/// simulation without a model says that TFLOP/s and MFU need one.
std::string figures_html(const nlohmann::json& summary);

/// One row per pipeline rank; columns for what the summary gives (exposed communication, peak
/// activations, memory), and a bar of the rank's time: busy, exposed communication, idle.
std::string ranks_table_html(const nlohmann::json& summary);

/// A one-line outcome: "makespan 33.04 s, bubble 27.4 %" (for the pitfall page's comparison).
std::string outcome_text(const nlohmann::json& summary);

}  // namespace pipegrid::report
