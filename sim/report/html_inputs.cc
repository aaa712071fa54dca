#include "sim/report/html_inputs.h"

#include <fmt/format.h>
#include <set>
#include <vector>

#include "sim/report/html_text.h"
#include "sim/report/json_fields.h"

namespace pipegrid::report {

namespace {

using nlohmann::json;

// schedule/check's summary holds its parameters beside its metrics (sim/run/schedule_report.cc).
const std::set<std::string> kMetrics = {"makespan", "bubble_fraction", "longest_rank_span", "ranks", "version"};

void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& rows) {
  for (const auto& [key, value] : j.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) flatten(value, name, rows);
    else if (value.is_array()) rows.emplace_back(name, value.dump());
    else rows.emplace_back(name, scalar_text(value));
  }
}

// The recorded inputs: simulate's `inputs`, or the parameters of a schedule/check summary.
json recorded_inputs(const RunFiles& files) {
  if (!files.summary) return field(files.deadlock ? *files.deadlock : json(), "inputs");
  const json& inputs = field(*files.summary, "inputs");
  if (inputs.is_object()) return inputs;
  json params = json::object();
  if (files.summary->is_object())
    for (const auto& [key, value] : files.summary->items())
      if (!kMetrics.contains(key)) params[key] = value;
  return params;
}

}  // namespace

std::string inputs_html(const RunFiles& files) {
  if (files.experiment)
    return "<p>experiment.toml:</p>\n<pre class=\"toml\">" + escape(*files.experiment) + "</pre>\n";
  const json inputs = recorded_inputs(files);
  if (!inputs.is_object() || inputs.empty()) return "";
  std::vector<std::pair<std::string, std::string>> rows;
  flatten(inputs, "", rows);
  std::string out = "<dl class=\"inputs\">\n";
  for (const auto& [name, value] : rows)
    out += fmt::format("<div><dt>{}</dt><dd>{}</dd></div>\n", escape(name), escape(value));
  return out + "</dl>\n";
}

std::string run_title(const RunFiles& files) {
  const json inputs = recorded_inputs(files);
  std::vector<std::string> parts;
  if (const auto schedule = text_field(inputs, "schedule")) parts.push_back(*schedule);
  for (const auto& [key, name] : {std::pair{"tp", "tp"}, {"pp", "pp"}, {"dp", "dp"}})
    if (const auto n = number_field(inputs, key); n && (*n > 1 || std::string(key) == "pp"))
      parts.push_back(fmt::format("{} {}", name, *n));
  if (const auto m = number_field(inputs, "microbatches")) parts.push_back(fmt::format("{} micro-batches", *m));
  if (const auto platform = text_field(inputs, "platform")) {
    const std::size_t slash = platform->rfind('/');
    parts.push_back(slash == std::string::npos ? *platform : platform->substr(slash + 1));
  }
  return fmt::format("{}", fmt::join(parts, " \u00b7 "));
}

}  // namespace pipegrid::report
