#include "sim/cli/timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <ostream>
#include <vector>

#include "common/number_format.h"

namespace pipegrid::cli {

namespace {

constexpr long kMinWidth = 20, kMaxWidth = 20000, kDefaultWidth = 100;  // --width's bounds (option_schema.cc)

// A tick spacing from 1, 2, 5 × 10^k that keeps tick labels at least `min_columns` apart.
double tick_step(double columns_per_unit, double min_columns) {
  for (double magnitude = 1e-6;; magnitude *= 10)
    for (double step : {1.0, 2.0, 5.0})
      if (step * magnitude * columns_per_unit >= min_columns) return step * magnitude;
}

std::string margin_of(const Schedule& s) { return std::string(fmt::format("rank {} |", s.ranks - 1).size(), ' '); }

// The labels an op can be drawn with, longest first: 0F12, F12, F; (0F7;7B3), F7;B3, FB.
std::vector<std::string> labels_of(const Op& op) {
  const auto short_form = [](const Action& a) { return kind_letter(a.kind) + std::to_string(a.microbatch); };
  if (!op.is_pair()) return {to_string(op), short_form(op.first), std::string(1, kind_letter(op.first.kind))};
  return {to_string(op), short_form(op.first) + ";" + short_form(*op.second),
          std::string{kind_letter(op.first.kind), kind_letter(op.second->kind)}};
}

// An op over `cells` columns: the longest label that leaves its last column blank, then '-' to it;
// one column holds the label's first letter alone.
std::string bar(const Op& op, std::size_t cells) {
  const std::vector<std::string> labels = labels_of(op);
  if (cells == 1) return labels.back().substr(0, 1);
  std::string cell(cells, '-');
  cell.back() = ' ';
  for (const std::string& label : labels)
    if (label.size() <= cells - 1) return cell.replace(0, label.size(), label);
  return cell.replace(0, 1, labels.back().substr(0, 1));
}

}  // namespace

long default_timeline_width() {
  const char* columns = std::getenv("COLUMNS");
  if (!columns) return kDefaultWidth;
  const std::string_view text(columns);
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < kMinWidth || value > kMaxWidth)
    return kDefaultWidth;
  return value;
}

std::string wrap_text(const std::string& text, long width, const std::string& indent) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    const std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    const std::string joined = line.empty() ? (out.empty() ? word : indent + word) : line + ' ' + word;
    if (!line.empty() && static_cast<long>(joined.size()) > width) {
      out += line + '\n';
      line = indent + word;
    } else {
      line = joined;
    }
  }
  return out + line + '\n';
}

double timeline_scale(std::span<const ScheduleRun> runs, long width) {
  double natural = 0, fit = 0;
  for (const ScheduleRun& run : runs) {
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
    natural = std::max(natural, static_cast<double>(longest_label + 1) / shortest);
    const double columns = static_cast<double>(width - static_cast<long>(margin_of(s).size()));
    if (run.timing.makespan > 0) {
      const double mine = std::max(columns, 1.0) / run.timing.makespan;
      fit = fit == 0 ? mine : std::min(fit, mine);
    }
  }
  return fit == 0 ? natural : std::min(natural, fit);
}

void draw_timeline(std::ostream& out, const ScheduleRun& run, long width, double columns_per_unit) {
  const Schedule& s = run.schedule;
  if (columns_per_unit <= 0) columns_per_unit = timeline_scale(std::span<const ScheduleRun>(&run, 1), width);
  const auto column = [&](double t) { return static_cast<long>(std::llround(t * columns_per_unit)); };
  const long row_width = column(run.timing.makespan);
  const std::string margin = margin_of(s);
  const long room = std::max(width - static_cast<long>(margin.size()), row_width);

  out << wrap_text(
      fmt::format("{}: pp {}, microbatches {}, chunks {}; makespan {}, bubble fraction {:.4f}", s.name, s.ranks,
                  s.microbatches, s.chunks, format_number(run.timing.makespan), run.timing.bubble_fraction),
      width);
  std::string axis(static_cast<std::size_t>(room), ' ');
  const double step = tick_step(columns_per_unit, 8);
  for (double t = 0; column(t) <= row_width; t += step) {
    const std::string label = format_number(t);
    if (column(t) + static_cast<long>(label.size()) > room) break;
    axis.replace(static_cast<std::size_t>(column(t)), label.size(), label);
  }
  axis.erase(axis.find_last_not_of(' ') + 1);
  out << fmt::format("{:>{}}", "time ", margin.size()) << axis << '\n';

  for (int r = 0; r < s.ranks; ++r) {
    std::string row(static_cast<std::size_t>(row_width), '.');
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      const OpSpan& span = run.timing.spans[r][i];
      const long begin = column(span.start), end = column(span.end);
      if (end <= begin) continue;
      row.replace(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin),
                  bar(s.programs[r][i], static_cast<std::size_t>(end - begin)));
    }
    out << fmt::format("{:>{}}", fmt::format("rank {} |", r), margin.size()) << row << '\n';
  }
}

}  // namespace pipegrid::cli
