#include "sim/report/html_deadlock.h"

#include <fmt/format.h>
#include <set>

#include "sim/report/html_text.h"

namespace pipegrid::report {

namespace {

// When the wait began: the file's blocked_since, else the end of the rank's last computation (the
// spec's definition for a rank blocked between actions), else unknown (-1).
double since_of(const DeadlockWait& w, const TraceChart* chart) {
  if (w.blocked_since) return *w.blocked_since;
  if (chart)
    for (const ChartRow& row : chart->rows)
      if (row.rank == w.rank) return row.last_compute_end;
  return -1;
}

std::string engine_text(const std::string& engine) {
  if (engine == "checker") return "found by the static checker (compute dependencies, no messages)";
  if (engine == "comm-engine") return "found by the contention-free comm engine";
  if (engine == "executor" || engine.empty()) return "found by the SimGrid executor: every unfinished GPU is blocked";
  return "found by " + engine;
}

std::string peer_text(const DeadlockWait& w) {
  if (w.waits_for >= 0 && !w.waits_for_gpu.empty() && w.waits_for_gpu != fmt::format("rank {}", w.waits_for))
    return fmt::format("rank {} ({})", w.waits_for, w.waits_for_gpu);
  if (w.waits_for >= 0) return fmt::format("rank {}", w.waits_for);
  return w.waits_for_gpu.empty() ? "its peers" : w.waits_for_gpu;
}

std::string wait_row(std::size_t i, const DeadlockWait& w, const TraceChart* chart) {
  const double since = since_of(w, chart);
  return fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}{}</td><td>{} to {} <code>{}</code></td></tr>\n",
                     i, escape(wait_name(w)), escape(w.blocked_at), since >= 0 ? escape(short_number(since)) : "\u2014",
                     w.blocked_since || since < 0 ? "" : "*", escape(peer_text(w)),
                     escape(w.what == "collective" ? "enter" : w.what.empty() ? "send" : w.what), escape(w.action));
}

}  // namespace

std::string deadlock_outcome(const DeadlockView& d) { return "deadlock at t = " + seconds_text(d.time); }

std::string deadlock_chain_html(const DeadlockView& d) {
  return fmt::format("<p class=\"chain\">{}</p>\n<p class=\"engine\">{}{}.</p>\n", escape(d.chain),
                     escape(engine_text(d.engine)), d.open ? "; the waits end at a rank that finished its step" : "");
}

std::string deadlock_cycle_html(const DeadlockView& d, const TraceChart* chart) {
  std::string out = "<table class=\"cycle\">\n<thead><tr><th>#</th><th>rank</th><th>blocked at</th><th>since (s)</th>"
         "<th>waits for</th></tr></thead>\n<tbody>\n";
  bool inferred = false;
  for (std::size_t i = 0; i < d.cycle.size(); ++i) {
    out += wait_row(i + 1, d.cycle[i], chart);
    inferred |= !d.cycle[i].blocked_since && since_of(d.cycle[i], chart) >= 0;
  }
  out += fmt::format("</tbody>\n</table>\n<p class=\"note\">Row i waits for row i + 1{}.{}</p>\n",
                     d.open ? "; the last waits for a rank that finished" : ", the last for the first",
                     inferred ? " * the end of the rank's last computation (the file gives no blocked_since)." : "");
  std::set<std::string> in_cycle;
  for (const DeadlockWait& w : d.cycle) in_cycle.insert(wait_name(w));
  std::vector<std::string> others;
  for (const DeadlockWait& w : d.blocked)
    if (in_cycle.insert(wait_name(w)).second) others.push_back(wait_name(w) + " at " + w.blocked_at);
  if (!others.empty())
    out += "<p>Also blocked, outside the cycle: " + escape(fmt::format("{}", fmt::join(others, "; "))) + ".</p>\n";
  if (!d.hint_text.empty())
    out += fmt::format("<div class=\"fix\"><b>fix:</b> {}{}</div>\n", escape(d.hint_text),
                       d.hint_shape.empty() ? "" : " <span class=\"shape\">" + escape(d.hint_shape) + "</span>");
  return out;
}

DeadlockMarks deadlock_marks(const DeadlockView& d, const TraceChart& chart) {
  DeadlockMarks marks;
  marks.time = d.time;
  std::set<int> hatched;
  for (const auto* list : {&d.cycle, &d.blocked})
    for (const DeadlockWait& w : *list)
      if (w.rank >= 0 && hatched.insert(w.rank).second)
        marks.blocked.push_back({w.rank, std::max(0.0, since_of(w, &chart)), w.blocked_at});
  for (const DeadlockWait& w : d.cycle)
    if (w.rank >= 0 && w.waits_for >= 0)
      marks.arrows.push_back({w.rank, w.waits_for, std::max(0.0, since_of(w, &chart)), w.action});
  return marks;
}

}  // namespace pipegrid::report
