// The Gantt chart's time axis: ticks at 1, 2 or 5 times a power of ten, about eight of them, with
// grid lines through the rows.
#include <cmath>
#include <fmt/format.h>

#include "sim/report/gantt_geometry.h"
#include "sim/report/html_gantt.h"

namespace pipegrid::report {

namespace {

double tick_step(double end) {
  const double raw = end / 8;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

}  // namespace

std::string gantt_axis_svg(const GanttGeometry& g) {
  const double step = tick_step(g.end);
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  const double bottom = g.rows_bottom();
  std::string out = "<g class=\"axis\">\n";
  for (int i = 0; i * step <= g.end * (1 + 1e-9); ++i) {
    const double x = g.x(i * step);
    out += fmt::format(R"svg(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}"/><text x="{0}" y="{3}">{4:.{5}f}</text>)svg" "\n",
                       px(x), px(g.top - 2), px(bottom + 4), px(bottom + 16), i * step, decimals);
  }
  out += fmt::format(R"svg(<text class="unit" x="{}" y="{}">time (s)</text>)svg" "\n", px(g.x(g.end / 2)), px(bottom + 32));
  return out + "</g>\n";
}

}  // namespace pipegrid::report
