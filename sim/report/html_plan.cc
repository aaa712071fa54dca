#include "sim/report/html_plan.h"

#include <filesystem>
#include <optional>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_error.h"
#include "sim/output/output_files.h"
#include "sim/report/csv_reader.h"
#include "sim/report/html_page.h"
#include "sim/report/html_text.h"
#include "sim/report/run_files.h"

namespace pipegrid::report {

namespace {

using output::OutputFile;

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kDigits[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string stages_html(const nlohmann::json& plan) {
  std::string rows;
  const auto row = [&](const std::string& what, const std::string& count) {
    rows += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", escape(what), escape(count));
  };
  row("layouts enumerated", std::to_string(plan.at("combinations").get<std::size_t>()));
  for (const auto& [rule, count] : plan.at("excluded").items()) row("excluded: " + rule, std::to_string(count.get<std::size_t>()));
  row("estimated without contention", std::to_string(plan.at("estimated").get<std::size_t>()));
  row("simulated with contention", std::to_string(plan.at("simulated").get<std::size_t>()));
  return "<table>\n" + rows + "</table>\n";
}

std::string best_html(const std::string& csv_path) {
  const std::optional<std::string> text = read_text_file(csv_path, 256u << 20);
  if (!text) throw InputError(fmt::format("{}: missing beside the plan's plan.json", csv_path));
  std::istringstream in(*text);
  CsvReader csv(in, csv_path);
  const std::vector<std::string_view> shown = {"place", "tp", "pp", "dp", "cp", "ep", "micro_batch", "schedule",
                                               "chunks", "recompute", "peak_memory_bytes", "estimated_step_s",
                                               "simulated_step_s", "mfu"};
  constexpr std::string_view kLabels[] = {"place", "tp", "pp", "dp", "cp", "ep", "micro-batch", "schedule", "v",
                                          "recompute", "peak", "estimate s", "simulated s", "MFU"};
  std::vector<std::size_t> columns;
  std::string head;
  for (std::size_t c = 0; c < shown.size(); ++c) {
    columns.push_back(csv.require(shown[c]));
    head += fmt::format("<th>{}</th>", escape(kLabels[c]));
  }
  std::string body;
  int rows = 0;
  while (csv.next() && rows < 20) {
    if (csv.field(columns[0]).empty()) break;  // the excluded, unplaced
    ++rows;
    body += "<tr>";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::string cell(csv.field(columns[c]));
      if (shown[c] == "peak_memory_bytes" && !cell.empty()) cell = fmt::format("{:.1f} GiB", csv.number(columns[c]) / (1u << 30));
      else if ((shown[c].ends_with("_s") || shown[c] == "mfu") && !cell.empty()) cell = fmt::format("{:.4f}", csv.number(columns[c]));
      body += fmt::format("<td>{}</td>", escape(cell));
    }
    body += "</tr>\n";
  }
  return fmt::format("<table>\n<tr>{}</tr>\n{}</table>\n", head, body);
}

std::string plan_page_of(const std::string& dir, const nlohmann::json& plan) {
  const nlohmann::json& inputs = plan.value("inputs", nlohmann::json::object());
  const std::string subtitle = fmt::format("{} on {}, global batch {}", inputs.value("model", std::string("?")),
                                           inputs.value("platform", std::string("?")), inputs.value("global_batch", 0));
  std::string body = section_html(2, "What each stage kept", stages_html(plan));
  const std::string png = read_text_file(output::output_path(dir, OutputFile::ParetoPng), 64u << 20).value_or("");
  if (!png.empty())
    body += section_html(2, "Step time against memory",
                         fmt::format("<img alt=\"step time against peak memory\" src=\"data:image/png;base64,{}\">\n",
                                     base64(png)));
  const nlohmann::json& best = plan.value("best", nlohmann::json::array());
  if (best.size() >= 2 && best[0].contains("simulated_step_s") && best[1].contains("simulated_step_s")) {
    const double a = best[0]["simulated_step_s"], b = best[1]["simulated_step_s"];
    body += section_html(2, "Why the runner-up lost",
                         paragraphs(fmt::format(
                             "The best, {}, steps in {:.4f} s. The runner-up, {}, takes {:.2f} % longer: its bubble "
                             "is {:.1f} % of the step against {:.1f} %, its most exposed rank waits {:.3f} s for "
                             "communication against {:.3f} s, and its fullest GPU holds {:.1f} GiB against "
                             "{:.1f} GiB.",
                             best[0]["text"].get<std::string>(), a, best[1]["text"].get<std::string>(),
                             100 * (b / a - 1), 100 * best[1].value("bubble_fraction", 0.0),
                             100 * best[0].value("bubble_fraction", 0.0), best[1].value("exposed_comm_s", 0.0),
                             best[0].value("exposed_comm_s", 0.0),
                             best[1]["peak_memory_bytes"].get<double>() / (1u << 30),
                             best[0]["peak_memory_bytes"].get<double>() / (1u << 30))));
  }
  body += section_html(2, "The best layouts", best_html(output::output_path(dir, OutputFile::PlanCsv)));
  return page_html("pipegrid plan", subtitle, body, "from plan.json, plan.csv and pareto.png");
}

}  // namespace

bool is_plan_folder(const std::string& dir) {
  std::error_code error;
  return std::filesystem::is_regular_file(output::output_path(dir, OutputFile::PlanJson), error);
}

std::string plan_page(const std::string& dir) {
  const std::string json_path = output::output_path(dir, OutputFile::PlanJson);
  const std::optional<nlohmann::json> plan = read_json_file(json_path);
  if (!plan) throw InputError(fmt::format("{}: no such file", json_path));
  // A key of the wrong type is as malformed as broken JSON: one line naming the file (exit 2).
  try {
    return plan_page_of(dir, *plan);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a plan's JSON: {}", json_path, e.what()));
  }
}

}  // namespace pipegrid::report
