// Where the Gantt chart puts things: one scale from seconds to SVG pixels and one row height, shared
// by the bars (html_gantt.cc), the deadlock's marks (html_gantt_marks.cc) and the time axis.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <string>

namespace pipegrid::report {

struct GanttGeometry {
  static constexpr double kWidth = 1160;     // the viewBox: the page scales it to its column
  static constexpr double kLeft = 104;       // row labels
  static constexpr double kRight = 16;
  static constexpr double kRowHeight = 36;       // a row; a deadlock's rows are further apart, for the arrows
  static constexpr double kDeadlockRowHeight = 68;
  static constexpr double kBarTop = 5;       // computations: the row's upper part
  static constexpr double kBarHeight = 22;
  static constexpr double kCommTop = 29;     // transfers: a thin lane under them
  static constexpr double kCommHeight = 4;
  static constexpr double kAxisHeight = 38;

  double end = 1;   // seconds at the right edge
  double top = 8;   // room above the first row (the deadlock's time label)
  double row_height = kRowHeight;
  int rows = 0;

  double plot_width() const { return kWidth - kLeft - kRight; }
  double x(double t) const { return kLeft + std::clamp(t / end, 0.0, 1.0) * plot_width(); }
  double row_top(int row) const { return top + row * row_height; }
  double rows_bottom() const { return row_top(rows - 1) + kCommTop + kCommHeight + 4; }
  double height() const { return rows_bottom() + kAxisHeight; }
};

/// An SVG coordinate: one decimal is a tenth of a pixel, and keeps the file small.
inline std::string px(double v) { return fmt::format("{:.1f}", v); }

}  // namespace pipegrid::report
