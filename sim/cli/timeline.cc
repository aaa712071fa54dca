#include "sim/cli/timeline.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <ostream>

#include "common/input_error.h"
#include "sim/cli/schedule_output.h"

namespace pipegrid::cli {

namespace {

// A tick spacing from 1, 2, 5 × 10^k that keeps tick labels at least `min_columns` apart.
double tick_step(double columns_per_unit, double min_columns) {
  for (double magnitude = 1e-6;; magnitude *= 10)
    for (double step : {1.0, 2.0, 5.0})
      if (step * magnitude * columns_per_unit >= min_columns) return step * magnitude;
}

}  // namespace

double timeline_scale(const ScheduleRun& run) {
  const Schedule& s = run.schedule;
  std::size_t longest_label = 1;
  double shortest = 0;
  for (int r = 0; r < s.ranks; ++r)
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      longest_label = std::max(longest_label, to_string(s.programs[r][i]).size());
      const OpSpan& span = run.timing.spans[r][i];
      const double duration = span.end - span.start;
      if (duration > 0 && (shortest == 0 || duration < shortest)) shortest = duration;
    }
  if (shortest == 0) shortest = 1;
  return static_cast<double>(longest_label + 1) / shortest;
}

void draw_timeline(std::ostream& out, const ScheduleRun& run, double columns_per_unit) {
  const Schedule& s = run.schedule;
  if (columns_per_unit <= 0) columns_per_unit = timeline_scale(run);
  // Checked in doubles first: ops of very different lengths can ask for more columns than a long holds.
  const double columns = std::round(run.timing.makespan * columns_per_unit);
  if (!(columns <= kMaxTimelineColumns))
    throw InputError(fmt::format(
        "--format timeline: {} on {} ranks with {} micro-batches would be {} columns wide (limit {}); use --format "
        "table, or fewer micro-batches",
        s.name, s.ranks, s.microbatches, format_number(columns), kMaxTimelineColumns));
  const auto column = [&](double t) { return static_cast<long>(std::llround(t * columns_per_unit)); };
  const long width = column(run.timing.makespan);

  out << fmt::format("{}: pp {}, microbatches {}, chunks {}; makespan {}, bubble fraction {:.4f}\n", s.name, s.ranks,
                     s.microbatches, s.chunks, format_number(run.timing.makespan), run.timing.bubble_fraction);
  const std::string margin(fmt::format("rank {} |", s.ranks - 1).size(), ' ');
  std::string axis(static_cast<std::size_t>(width) + 16, ' ');
  const double step = tick_step(columns_per_unit, 8);
  for (double t = 0; column(t) <= width; t += step) {
    const std::string label = format_number(t);
    axis.replace(static_cast<std::size_t>(column(t)), label.size(), label);
  }
  axis.erase(axis.find_last_not_of(' ') + 1);
  out << fmt::format("{:>{}}", "time ", margin.size()) << axis << '\n';

  for (int r = 0; r < s.ranks; ++r) {
    std::string row(static_cast<std::size_t>(width), '.');
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      const OpSpan& span = run.timing.spans[r][i];
      const long begin = column(span.start), end = column(span.end);
      if (end <= begin) continue;
      const auto cells = static_cast<std::size_t>(end - begin);
      // Label, then '-' to the op's end, then one blank column that keeps neighbours apart.
      std::string cell(cells, '-');
      if (cells > 1) cell.back() = ' ';
      const std::string label = to_string(s.programs[r][i]);
      cell.replace(0, std::min(label.size(), cells > 1 ? cells - 1 : cells), label, 0, cells > 1 ? cells - 1 : cells);
      row.replace(static_cast<std::size_t>(begin), cells, cell);
    }
    out << fmt::format("{:>{}}", fmt::format("rank {} |", r), margin.size()) << row << '\n';
  }
}

}  // namespace pipegrid::cli
