#include "sim/report/report_run.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "common/input_error.h"
#include "common/log.h"
#include "sim/report/deadlock_view.h"
#include "sim/report/html_deadlock.h"
#include "sim/report/html_gantt.h"
#include "sim/report/html_inputs.h"
#include "sim/report/html_links.h"
#include "sim/report/html_lesson.h"
#include "sim/report/html_page.h"
#include "sim/report/html_summary.h"
#include "sim/report/html_text.h"
#include "sim/report/json_fields.h"
#include "sim/report/status_warning.h"
#include "sim/report/trace_chart.h"

namespace pipegrid::report {

namespace {

std::optional<DeadlockView> read_view(const RunFiles& files) {
  if (!files.deadlock) return std::nullopt;
  const std::string name = files.path(output::OutputFile::Deadlock);
  try {
    return read_deadlock(*files.deadlock);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: {}", name, e.what()));
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", name, e.what()));
  }
}

// How many pipeline ranks the run has, so that a rank without a finished action still gets its row.
int pipeline_ranks(const RunFiles& files, const std::optional<DeadlockView>& deadlock) {
  int ranks = 0;
  if (files.summary) {
    const auto pp = number_field(field(*files.summary, "inputs"), "pp");
    const auto own = number_field(*files.summary, "pp");  // schedule/check's summary
    ranks = static_cast<int>(std::clamp(pp.value_or(own.value_or(0)), 0.0, double(kMaxRows)));
  }
  if (deadlock)
    for (const auto* list : {&deadlock->cycle, &deadlock->blocked})
      for (const DeadlockWait& w : *list) ranks = std::max(ranks, std::min(w.rank, kMaxRows - 1) + 1);
  return ranks;
}

}  // namespace

RunReport run_report(const RunFiles& files, int level, std::string_view id) {
  RunReport r;
  const std::optional<DeadlockView> deadlock = read_view(files);
  std::optional<TraceChart> chart;
  if (files.trace) {
    chart = read_trace_chart(files.path(output::OutputFile::TraceCsv), files.path(output::OutputFile::TraceCsv));
    add_missing_rows(*chart, pipeline_ranks(files, deadlock));
  }
  r.title = run_title(files);
  r.deadlocked = deadlock.has_value();
  r.outcome = deadlock ? deadlock_outcome(*deadlock) : files.summary ? outcome_text(*files.summary) : "";
  if (const std::string warning = status_warning(files); !warning.empty()) {
    log::cli().warn("{}: {}", files.dir, warning);
    r.body += status_warning_html(warning, level);
    if (r.outcome.empty()) r.outcome = "did not finish";
  }
  if (files.lesson && level == 2) r.body += section_html(level, lesson_title(*files.lesson), lesson_html(*files.lesson));
  if (deadlock)
    r.body += section_html(level, "Deadlock at t = " + seconds_text(deadlock->time), deadlock_chain_html(*deadlock),
                           "deadlock");
  if (files.summary) r.body += section_html(level, "Summary", figures_html(*files.summary));
  if (chart) {
    const DeadlockMarks marks = deadlock ? deadlock_marks(*deadlock, *chart) : DeadlockMarks{};
    r.body += section_html(level, deadlock ? "Timeline up to the deadlock" : "Timeline",
                           gantt_html(*chart, deadlock ? &marks : nullptr, id));
  } else if (files.summary || deadlock) {
    r.body += section_html(level, "Timeline",
                           "<p class=\"note\">No trace.csv in this directory, so no chart: a run writes one with --out "
                           "(simulate unless --trace off).</p>\n");
  }
  if (deadlock)
    r.body += section_html(level, "The cycle of waits", deadlock_cycle_html(*deadlock, chart ? &*chart : nullptr),
                           "deadlock");
  if (files.summary)
    if (const std::string table = ranks_table_html(*files.summary); !table.empty())
      r.body += section_html(level, "Per pipeline rank", table);
  if (files.links) r.body += section_html(level, "Busiest links", links_html(files.path(output::OutputFile::Links), files.path(output::OutputFile::Links)));
  const std::string inputs = inputs_html(files);
  if (!inputs.empty()) r.body += section_html(level, "Inputs", inputs);
  for (const output::OutputFileSpec& file : output::output_files())
    if (file.report_reads && files.has(file.id)) r.files.emplace_back(file.name);
  return r;
}

}  // namespace pipegrid::report
