// What the Gantt chart's colours, shades and marks mean, as HTML under it (swatches by CSS, no image).
#include <fmt/format.h>
#include <set>

#include "sim/report/html_gantt.h"
#include "sim/report/html_text.h"
#include "sim/report/palette.h"

namespace pipegrid::report {

namespace {

// docs/commands.md's names of the actions (F forward, B full backward, I = B − W, W the weight gradient).
std::string compute_name(const std::string& base) {
  if (base == "F") return "F forward";
  if (base == "B") return "B backward";
  if (base == "I") return "I input gradient";
  if (base == "W") return "W weight gradient";
  return base;
}

std::string key(std::string_view style, const std::string& text) {
  return fmt::format("<span class=\"key\"><i style=\"{}\"></i>{}</span>\n", style, escape(text));
}

}  // namespace

std::string gantt_legend_html(const TraceChart& chart, bool deadlock) {
  std::set<std::string> compute, comm;
  bool directions = false;
  for (const ChartRow& row : chart.rows) {
    for (const Bar& bar : row.compute) {
      compute.insert(std::string(compute_base(bar.kind)));
      directions |= !bar.direction.empty();
    }
    for (const Bar& bar : row.comm) comm.insert(bar.kind);
  }
  std::string out = "<div class=\"legend\">\n";
  for (const std::string base : {"F", "B", "I", "W", "dense", "optimizer"})
    if (compute.erase(base)) out += key(fmt::format("background:{}", compute_colour(base)), compute_name(base));
  for (const std::string& other : compute) out += key(fmt::format("background:{}", compute_colour(other)), other);
  out += key(fmt::format("background:{}", kBubbleColour), "idle (the bubble)");
  if (!deadlock && chart.end > chart.compute_end && chart.cut < 0)
    out += key(fmt::format("background:{}", kTailColour), "idle after the last computation");
  for (const std::string& kind : comm) out += key(fmt::format("background:{};height:4px", comm_colour(kind)), kind);
  if (deadlock) {
    out += "<span class=\"key\"><i class=\"hatch\"></i>blocked until the end (deadlock)</span>\n";
    out += "<span class=\"key\"><i class=\"arrow\"></i>waits for</span>\n";
  }
  if (chart.chunk_column && chart.max_chunk > 0)
    out += key(fmt::format("background:{}", chunk_shade(compute_colour("F"), 1)), "chunk 1 and up: lighter");
  out += "</div>\n<p class=\"note\">Each bar is labelled with its kind and micro-batch (F3), where it fits";
  if (chart.chunk_column && chart.max_chunk > 0)
    out += "; \u00b7cN is its chunk (virtual stage N of the rank), drawn lighter the higher N";
  if (directions) out += "; \u2193 a micro-batch that entered at rank 0, \u2191 one that entered at the last rank";
  out += deadlock ? "." : chart.cut < 0 ? ". The black line is the step's end." : ".";
  out += " Hover a bar for its details.";
  if (!comm.empty()) out += " The thin lane under a row shows its transfers and gradient collectives.";
  if (!chart.undrawn_kinds.empty())
    out += fmt::format(" Not drawn: {} (too many and too short at this scale).",
                       escape(fmt::format("{}", fmt::join(chart.undrawn_kinds, ", "))));
  return out + "</p>\n";
}

}  // namespace pipegrid::report
