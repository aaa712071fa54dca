#include "sim/report/html_summary.h"

#include <fmt/format.h>
#include <map>

#include "sim/report/html_text.h"
#include "sim/report/json_fields.h"

namespace pipegrid::report {

namespace {

using nlohmann::json;

std::string tile(const std::string& value, const std::string& label, const std::string& detail = "") {
  return fmt::format("<div class=\"tile\"><div class=\"value\">{}</div><div class=\"label\">{}</div>{}</div>\n",
                     escape(value), escape(label),
                     detail.empty() ? "" : "<div class=\"detail\">" + escape(detail) + "</div>");
}

double exposed(const json& rank, const char* kind) { return number_field(field(rank, "exposed_comm"), kind).value_or(0); }

// Per-rank facts that live outside summary.ranks: memory.ranks (simulate), keyed by rank.
std::map<int, const json*> memory_by_rank(const json& summary) {
  std::map<int, const json*> out;
  const json& ranks = field(field(summary, "memory"), "ranks");
  if (ranks.is_array())
    for (const json& r : ranks)
      if (const auto rank = int_field(r, "rank")) out[*rank] = &r;
  return out;
}

std::string stages_text(const json& rank) {
  const json& stages = field(rank, "stages");
  if (!stages.is_array()) return "";
  std::string out;
  for (const json& s : stages) {
    if (!out.empty()) out += ',';
    out += scalar_text(s);
  }
  return out;
}

// The rank's time as one bar: busy, exposed communication, idle; widths as shares of their sum.
std::string time_bar(double busy, double comm, double idle) {
  const double total = busy + comm + idle;
  if (!(total > 0)) return "";
  return fmt::format("<div class=\"timebar\"><i class=\"busy\" style=\"width:{:.1f}%\"></i><i class=\"comm\" "
                     "style=\"width:{:.1f}%\"></i><i class=\"idle\" style=\"width:{:.1f}%\"></i></div>",
                     100 * busy / total, 100 * comm / total, 100 * idle / total);
}

// A time on a tile: four significant digits, read from the back of a lecture room; the figure as the
// text report prints it (format_number) under it when that says more.
std::string time_tile(double seconds, const std::string& label, std::string detail = "") {
  const std::string shown = fmt::format("{:.4g} s", seconds), exact = seconds_text(seconds);
  if (shown != exact) detail = detail.empty() ? exact : exact + ", " + detail;
  return tile(shown, label, detail);
}

}  // namespace

std::string figures_html(const json& summary) {
  std::string out = "<div class=\"tiles\">\n";
  if (const auto makespan = number_field(summary, "makespan")) out += time_tile(*makespan, "makespan");
  const auto steps = number_field(summary, "steps");
  if (const auto steady = number_field(summary, "steady_step"); steady && steps && *steps > 1)
    out += time_tile(*steady, "steady step", fmt::format("of {} steps", *steps));
  if (const auto bubble = number_field(summary, "bubble_fraction"))
    out += tile(percent_text(*bubble), "bubble", fmt::format("bubble fraction {:.4f}", *bubble));
  if (const auto span = number_field(summary, "longest_rank_span"))
    out += time_tile(*span, "longest rank span", "first to last op of a rank");
  const auto tflops = number_field(summary, "tflops_per_gpu");
  if (tflops) out += tile(fmt::format("{:.1f}", *tflops), "TFLOP/s per GPU", "hardware FLOPs (Megatron)");
  if (const auto mfu = number_field(summary, "mfu")) out += tile(percent_text(*mfu), "MFU", "model FLOPs over peak");
  if (!tflops && field(summary, "inputs").is_object())
    out += tile("\u2014", "TFLOP/s per GPU, MFU", "need a model (--model or --layers …)");
  out += "</div>\n";
  if (const auto pace = text_field(field(summary, "pace"), "explanation"))
    out += "<p class=\"pace\"><b>Pace:</b> " + escape(*pace) + "</p>\n";
  return out;
}

std::string ranks_table_html(const json& summary) {
  const json& ranks = field(summary, "ranks");
  if (!ranks.is_array() || ranks.empty()) return "";
  const auto memory = memory_by_rank(summary);
  bool has_comm = false, has_a2a = false, has_stages = false, has_peak = false, has_bytes = false;
  for (const json& r : ranks) {
    has_comm |= field(r, "exposed_comm").is_object();
    has_a2a |= exposed(r, "a2a") > 0;
    has_stages |= field(r, "stages").is_array();
    const auto m = memory.find(int_field(r, "rank").value_or(-1));
    has_peak |= number_field(r, "peak_activations") || (m != memory.end() && number_field(*m->second, "peak_activations"));
    has_bytes |= m != memory.end() && number_field(*m->second, "total");
  }
  std::string out = "<table class=\"ranks\">\n<thead><tr><th>rank</th>";
  if (has_stages) out += "<th>stages</th>";
  out += "<th>busy (s)</th><th>idle (s)</th>";
  if (has_comm) out += "<th>p2p exposed (s)</th><th>tp exposed (s)</th><th>dp exposed (s)</th>";
  if (has_a2a) out += "<th>a2a exposed (s)</th>";
  if (has_peak) out += "<th>peak activations</th>";
  if (has_bytes) out += "<th>memory (GB)</th>";
  out += "<th class=\"wide\">busy \u00b7 exposed comm \u00b7 idle</th></tr></thead>\n<tbody>\n";
  for (const json& r : ranks) {
    const int rank = int_field(r, "rank").value_or(-1);
    const double busy = number_field(r, "busy").value_or(0), idle = number_field(r, "idle").value_or(0);
    const double comm = exposed(r, "p2p") + exposed(r, "tp") + exposed(r, "dp") + exposed(r, "a2a");
    out += fmt::format("<tr><td>{}</td>", rank);
    if (has_stages) out += "<td>" + escape(stages_text(r)) + "</td>";
    out += fmt::format("<td>{}</td><td>{}</td>", short_number(busy), short_number(idle));
    if (has_comm)
      out += fmt::format("<td>{}</td><td>{}</td><td>{}</td>", short_number(exposed(r, "p2p")),
                         short_number(exposed(r, "tp")), short_number(exposed(r, "dp")));
    if (has_a2a) out += fmt::format("<td>{}</td>", short_number(exposed(r, "a2a")));
    const auto m = memory.find(rank);
    static const json kNone;
    const json& mem = m == memory.end() ? kNone : *m->second;
    if (has_peak) {
      const auto peak = number_field(r, "peak_activations") ? number_field(r, "peak_activations")
                                                            : number_field(mem, "peak_activations");
      out += "<td>" + (peak ? short_number(*peak) : std::string()) + "</td>";
    }
    if (has_bytes) {
      const auto bytes = number_field(mem, "total");
      out += "<td>" + (bytes ? fmt::format("{:.1f}", *bytes / 1e9) : std::string()) +
             (field(mem, "over").is_boolean() && field(mem, "over").get<bool>() ? " <b class=\"over\">over!</b>" : "") +
             "</td>";
    }
    out += "<td class=\"wide\">" + time_bar(busy, comm, idle) + "</td></tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string outcome_text(const json& summary) {
  std::string out;
  if (const auto makespan = number_field(summary, "makespan")) out = "makespan " + seconds_text(*makespan);
  if (const auto bubble = number_field(summary, "bubble_fraction"))
    out += (out.empty() ? "" : ", ") + std::string("bubble ") + percent_text(*bubble);
  return out.empty() ? "finished" : out;
}

}  // namespace pipegrid::report
