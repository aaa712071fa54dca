// The inputs of a run as HTML: the experiment file when the directory has one (a sweep's run, a
// lesson), else the options summary.json records (simulate's `inputs`, schedule/check's parameters).
#pragma once

#include <string>

#include "sim/report/run_files.h"

namespace pipegrid::report {

/// "" when the directory records no inputs (a deadlocked simulate writes no summary).
std::string inputs_html(const RunFiles& files);

/// A short line naming the run: "1f1b · pp 4 · 8 micro-batches · star-4gpu.xml" ("" if unknown).
std::string run_title(const RunFiles& files);

}  // namespace pipegrid::report
