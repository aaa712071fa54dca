// The whiteboard picture of a pipeline: one row per rank, time flowing right, every op drawn as its
// label over its duration, idle time as dots — scaled to fit a terminal's width.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

#include "sim/run/schedule_run.h"

namespace pipegrid::cli {

using run::ScheduleRun;

/// The width a timeline fits in when --width is not given: $COLUMNS when it is a whole number
/// within --width's bounds (20 … 20000), else 100.
long default_timeline_width();

/// The columns per time unit at which all of `runs` are drawn at one scale (equal lengths mean equal
/// times across the diagrams): the shortest op as wide as the longest label plus one column, so that
/// every label fits and durations stay proportional — or less, so that the longest run fits in
/// `width` columns, rank margin included.
double timeline_scale(std::span<const ScheduleRun> runs, long width);

/// Needs run.timing.spans. An op is its label followed by '-' up to its last column, which is blank:
///
///   rank 0 |0F0 0F1 ........0B0---- 0F4 0B1---- …
///
/// Every line is at most `width` columns: a heading that would be longer wraps between words, a
/// tick that would overrun is left out, and a bar too narrow for its label shows it shortened (F12
/// for 0F12, then F; F7;B3 and FB for (0F7;7B3)) or, one column wide, as the kind letter alone.
/// `columns_per_unit` 0 means timeline_scale of this run alone.
void draw_timeline(std::ostream& out, const ScheduleRun& run, long width, double columns_per_unit = 0);

/// `text` broken between words into lines of at most `width` columns (a word longer than that
/// stays whole), the lines after the first indented by `indent`; each line ends with '\n'.
std::string wrap_text(const std::string& text, long width, const std::string& indent = "  ");

}  // namespace pipegrid::cli
