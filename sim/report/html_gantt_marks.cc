// A deadlock drawn on the Gantt chart (spec §3): the time every unfinished rank is blocked as a dashed
// line, each blocked row hatched from where it blocked to the right edge, and the cycle of waits as
// arrows from each blocked rank, at the time it blocked, to the rank it waits for.
#include <cstdlib>
#include <fmt/format.h>

#include "sim/report/gantt_geometry.h"
#include "sim/report/html_gantt.h"
#include "sim/report/html_text.h"
#include "sim/report/palette.h"

namespace pipegrid::report {

namespace {

using G = GanttGeometry;

std::string defs(std::string_view id) {
  return fmt::format(
      "<defs><pattern id=\"{0}-hatch\" patternUnits=\"userSpaceOnUse\" width=\"7\" height=\"7\" "
      "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"#fdecec\"/><line x1=\"0\" y1=\"0\" "
      "x2=\"0\" y2=\"7\" stroke=\"{1}\" stroke-width=\"2.4\" stroke-opacity=\"0.6\"/></pattern>"
      "<marker id=\"{0}-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" "
      "orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"{1}\"/></marker></defs>\n",
      id, kDeadlockColour);
}

}  // namespace

std::string deadlock_marks_svg(const GanttGeometry& g, const std::map<int, int>& row_of_rank,
                               const DeadlockMarks& marks, std::string_view id) {
  std::string out = defs(id);
  const double xt = g.x(marks.time);
  out += fmt::format(R"svg(<line class="deadline" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)svg"
                     R"svg(<text class="deadline" x="{0}" y="{3}">deadlock at t = {4}</text>)svg" "\n",
                     px(xt), px(g.top - 6), px(g.rows_bottom()), px(g.top - 9), escape(seconds_text(marks.time)));
  for (const DeadlockMarks::Blocked& b : marks.blocked) {
    const auto row = row_of_rank.find(b.rank);
    if (row == row_of_rank.end()) continue;
    const double top = g.row_top(row->second) + G::kBarTop, x = g.x(b.since);
    out += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="url(#{}-hatch)"/>)svg", px(x), px(top),
                       px(g.x(g.end) - x), px(G::kBarHeight), id);
    out += fmt::format(R"svg(<text class="blocked" x="{}" y="{}">blocked at {}</text>)svg" "\n", px(x + 10),
                       px(top + G::kBarHeight / 2 + 4), escape(b.at));
  }
  // Each arrow leaves its bar's lower edge going down, or its upper edge going up, and bulges to the
  // right going down and to the left going up, so that two ranks waiting on each other get two
  // arrows apart; a wait across several rows bulges further.
  for (const DeadlockMarks::Arrow& a : marks.arrows) {
    const auto from = row_of_rank.find(a.from), to = row_of_rank.find(a.to);
    if (from == row_of_rank.end() || to == row_of_rank.end() || from->second == to->second) continue;
    const bool down = to->second > from->second;
    const double bar_top = G::kBarTop, bar_bottom = G::kBarTop + G::kBarHeight;
    const double x = g.x(a.at);
    const double y1 = g.row_top(from->second) + (down ? bar_bottom : bar_top);
    const double y2 = g.row_top(to->second) + (down ? bar_top - 2 : bar_bottom + 2);
    const int span = std::abs(to->second - from->second);
    const double bulge = (down ? 1 : -1) * (22.0 + 14.0 * (span - 1)), mid = (y1 + y2) / 2;
    out += fmt::format(R"svg(<circle class="wait" cx="{}" cy="{}" r="3.5"/>)svg", px(x), px(y1));
    out += fmt::format(R"svg(<path class="wait" d="M{} {}Q{} {} {} {}" marker-end="url(#{}-arrow)"/>)svg", px(x),
                       px(y1), px(x + 2 * bulge), px(mid), px(x), px(y2), id);
    if (!a.label.empty())
      out += fmt::format(R"svg(<text class="wait{}" x="{}" y="{}">{}</text>)svg", down ? "" : " left",
                         px(x + bulge + (down ? 6 : -6)), px(mid + 4), escape(a.label));
    out += '\n';
  }
  return out;
}

}  // namespace pipegrid::report
