#include "sim/report/html_gantt.h"

#include <algorithm>
#include <fmt/format.h>

#include "sim/report/gantt_geometry.h"
#include "sim/report/html_text.h"
#include "sim/report/palette.h"

namespace pipegrid::report {

namespace {

using G = GanttGeometry;

// Average advance of a 10 px sans-serif character, for deciding whether a label fits its bar.
constexpr double kCharWidth = 6.1;

std::string direction_arrow(const std::string& direction) {
  if (direction == "down") return "\u2193";
  if (direction == "up") return "\u2191";
  return "";
}

// The label candidates of a bar, longest first: kind, micro-batch and chunk ("F3·c1", spec §3), with
// DualPipe's direction ("↓F3"), then shorter ones for narrower bars.
std::vector<std::string> labels(const Bar& bar, bool chunks) {
  if (bar.microbatch < 0) return {};
  const std::string mb = std::to_string(bar.microbatch);
  const std::string_view base = compute_base(bar.kind);
  const std::string kind = base.size() == 1 ? std::string(base) : "";
  const std::string arrow = direction_arrow(bar.direction);
  std::vector<std::string> out;
  if (chunks && bar.chunk >= 0) out.push_back(fmt::format("{}{}{}\u00b7c{}", arrow, kind, mb, bar.chunk));
  out.push_back(arrow + kind + mb);
  if (!kind.empty()) out.push_back(arrow + mb);
  if (!arrow.empty()) out.push_back(mb);
  return out;
}

std::size_t glyphs(const std::string& text) {  // UTF-8 code points
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xc0) != 0x80; }));
}

std::string tooltip(const Bar& bar) {
  std::string text = bar.kind;
  if (bar.stage >= 0) text += fmt::format(", stage {}", bar.stage);
  if (bar.microbatch >= 0) text += fmt::format(", micro-batch {}", bar.microbatch);
  if (bar.chunk >= 0) text += fmt::format(", chunk {}", bar.chunk);
  if (!bar.direction.empty()) text += ", " + bar.direction;
  return escape(text + fmt::format(": {:.6g}\u2013{:.6g} s", bar.start, bar.end));
}

std::string compute_bar(const G& g, double row_top, const Bar& bar, bool chunks) {
  const double lane_height = G::kBarHeight / bar.lanes;
  const double x0 = g.x(bar.start), x1 = g.x(bar.end), y = row_top + G::kBarTop + bar.lane * lane_height;
  const std::string_view base = compute_base(bar.kind);
  std::string out = fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>)svg",
                                px(x0), px(y), px(std::max(0.6, x1 - x0)), px(lane_height),
                                chunk_shade(compute_colour(bar.kind), bar.chunk), tooltip(bar));
  if (lane_height < 10) return out + '\n';
  for (const std::string& label : labels(bar, chunks)) {
    if (x1 - x0 < kCharWidth * static_cast<double>(glyphs(label)) + 4) continue;
    out += fmt::format(R"svg(<text x="{}" y="{}"{}>{}</text>)svg", px((x0 + x1) / 2), px(y + lane_height / 2 + 3.5),
                       dark_text_on(base) || bar.chunk > 0 ? R"svg( class="dark")svg" : "", escape(label));
    break;
  }
  return out + '\n';
}

std::string row_svg(const G& g, int row, const ChartRow& r, double idle_end, double tail_end, bool chunks) {
  const double top = g.row_top(row);
  std::string out = fmt::format(R"svg(<g class="row"><text class="rank" x="{}" y="{}">rank {}</text>)svg", px(G::kLeft - 8),
                                px(top + (r.host.empty() ? 20 : 15)), r.rank);
  if (!r.host.empty() && r.host != fmt::format("rank {}", r.rank))
    out += fmt::format(R"svg(<text class="host" x="{}" y="{}">{}</text>)svg", px(G::kLeft - 8), px(top + 28), escape(r.host));
  // Idle time shows through the bars: the bubble until the last computation ends, grey after it.
  out += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)svg", px(g.x(0)), px(top + G::kBarTop),
                     px(g.x(idle_end) - g.x(0)), px(G::kBarHeight), kBubbleColour);
  if (tail_end > idle_end)
    out += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)svg", px(g.x(idle_end)),
                       px(top + G::kBarTop), px(g.x(tail_end) - g.x(idle_end)), px(G::kBarHeight), kTailColour);
  out += '\n';
  for (const Bar& bar : r.compute) out += compute_bar(g, top, bar, chunks);
  for (const Bar& bar : r.comm)
    out += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>)svg" "\n",
                       px(g.x(bar.start)), px(top + G::kCommTop), px(std::max(0.6, g.x(bar.end) - g.x(bar.start))),
                       px(G::kCommHeight), comm_colour(bar.kind), tooltip(bar));
  return out + "</g>\n";
}

}  // namespace

std::string gantt_html(const TraceChart& chart, const DeadlockMarks* deadlock, std::string_view id) {
  const int rows = std::min(kMaxRows, static_cast<int>(chart.rows.size()));
  if (rows == 0) return "<p class=\"note\">trace.csv has no row of a GPU with tp 0 and dp 0 to draw.</p>\n";
  G g;
  g.rows = rows;
  // A deadlock's chart runs a quarter past its time, so that the hatched waits show; a capped one ends
  // where the bars drawn end.
  g.end = deadlock ? std::max(deadlock->time, chart.end) * 1.25 : chart.cut >= 0 ? chart.cut : chart.end;
  if (!(g.end > 0)) g.end = 1;
  if (deadlock) {
    g.top = 24;
    g.row_height = G::kDeadlockRowHeight;
  }
  const double idle_end = deadlock ? deadlock->time : chart.cut >= 0 ? chart.cut : chart.compute_end;
  const double tail_end = deadlock ? deadlock->time : g.end;
  const bool chunks = chart.chunk_column && chart.max_chunk > 0;
  std::string svg = fmt::format(
      R"svg(<svg class="gantt" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="Gantt chart">)svg" "\n",
      G::kWidth, px(g.height()), G::kWidth, px(g.height()));
  svg += gantt_axis_svg(g);
  std::map<int, int> row_of_rank;
  for (int row = 0; row < rows; ++row) {
    row_of_rank[chart.rows[row].rank] = row;
    svg += row_svg(g, row, chart.rows[row], idle_end, tail_end, chunks);
  }
  if (!deadlock && chart.cut < 0)  // the step's end
    svg += fmt::format(R"svg(<line class="end" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)svg" "\n", px(g.x(chart.end)),
                       px(g.top - 4), px(g.rows_bottom()));
  if (deadlock) svg += deadlock_marks_svg(g, row_of_rank, *deadlock, id);
  svg += "</svg>\n";
  std::string notes;
  if (chart.cut >= 0)
    notes += fmt::format("<p class=\"note\">This trace has {} bars on these rows; the chart draws the first {}, up to "
                         "t = {}, so that the page stays small (at most {} bars are drawn).</p>\n",
                         chart.bars, chart.drawn, escape(seconds_text(chart.cut)), kMaxBars);
  if (static_cast<int>(chart.rows.size()) > rows)
    notes += fmt::format("<p class=\"note\">The chart shows pipeline ranks 0 to {} of {} (at most {} rows).</p>\n",
                         chart.rows[rows - 1].rank, chart.rows.size(), kMaxRows);
  return "<figure class=\"chart\">\n" + svg + "<figcaption>\n" +
         gantt_legend_html(chart, deadlock != nullptr) + notes + "</figcaption>\n</figure>\n";
}

}  // namespace pipegrid::report
