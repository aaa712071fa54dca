#include "sim/plan/plan_files.h"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>
#include <toml++/toml.h>

#include "sim/input/experiment_file.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"

namespace pipegrid::plan {

namespace {

constexpr double kGiB = 1u << 30;

toml::node_view<toml::node> zip_list(toml::table& zip, const std::string& key) {
  if (!zip.contains(key)) zip.insert(key, toml::array{});
  return zip[key];
}

void push(toml::array& list, const input::Value& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          toml::array names;
          for (const std::string& name : v) names.push_back(name);
          list.push_back(std::move(names));
        } else {
          list.push_back(v);
        }
      },
      value);
}

std::string number(double v) { return fmt::format("{}", v); }  // shortest round-trip: best.toml reruns to these digits

}  // namespace

std::string simulate_sweep_text(const input::OptionValues& base, const std::vector<Layout>& layouts, bool moe) {
  toml::table zip;
  for (const Layout& layout : layouts) {
    input::OptionValues values(input::Command::Simulate);
    layout.apply(values, moe);
    for (const auto& [option, value] : values.given()) push(*zip_list(zip, option->key_name()).as_array(), *value);
  }
  toml::table file;
  file.insert("base", input::experiment_table(input::Experiment{base}));
  file.insert("zip", toml::array{std::move(zip)});
  std::ostringstream text;
  text << "# The layouts `pipegrid plan` chose to simulate with contention: a sweep, run by the plan or by\n"
          "# `pipegrid sweep simulate.toml --out simulate`.\n";
  constexpr auto kFlags = toml::toml_formatter::default_flags & ~toml::format_flags::allow_literal_strings &
                          ~toml::format_flags::allow_multi_line_strings;
  text << toml::toml_formatter(file, kFlags) << '\n';
  return text.str();
}

void order_rows(std::vector<PlanRow>& rows) {
  const auto rank = [](const PlanRow& r) { return r.stage == "simulated" ? 0 : r.stage == "estimated" ? 1 : 2; };
  const auto time = [](const PlanRow& r) {
    return r.simulated_step ? *r.simulated_step : r.estimate.step_seconds;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const PlanRow& a, const PlanRow& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (rank(a) == 2) return false;  // the excluded keep the enumeration's order
    if (time(a) != time(b)) return time(a) < time(b);
    if (a.estimate.peak_memory_bytes != b.estimate.peak_memory_bytes)
      return a.estimate.peak_memory_bytes < b.estimate.peak_memory_bytes;
    return a.layout.text() < b.layout.text();
  });
  int place = 0;
  for (PlanRow& r : rows) r.place = rank(r) < 2 ? ++place : 0;
}

void write_plan_csv(const std::string& dir, const std::vector<PlanRow>& rows) {
  std::string text = output::csv_header(output::OutputFile::PlanCsv);
  for (const PlanRow& r : rows) {
    const Layout& l = r.layout;
    std::string why = r.estimate.excluded_by;
    std::replace(why.begin(), why.end(), '"', '\'');
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\"\n",
                        r.place ? std::to_string(r.place) : "", l["tp"], l["pp"], l["dp"], l["cp"], l["ep"],
                        l["micro-batch"], l["microbatches"], l["schedule"], l["chunks"], l["recompute"],
                        l["sequence-parallel"], l["zero"],
                        r.estimate.peak_memory_bytes > 0 ? number(r.estimate.peak_memory_bytes) : "",
                        r.estimate.step_seconds > 0 ? number(r.estimate.step_seconds) : "",
                        r.simulated_step ? number(*r.simulated_step) : "",
                        r.simulated_step ? number(r.tflops_per_gpu) : "", r.simulated_step ? number(r.mfu) : "",
                        r.stage, why);
  }
  output::write_atomically(output::output_path(dir, output::OutputFile::PlanCsv), text);
}

namespace {

nlohmann::json row_json(const PlanRow& r) {
  nlohmann::json layout;
  for (std::size_t i = 0; i < kAxes.size(); ++i) layout[std::string(kAxes[i])] = r.layout.values[i];
  nlohmann::json row = {{"place", r.place}, {"layout", layout}, {"text", r.layout.text()},
                        {"peak_memory_bytes", r.estimate.peak_memory_bytes},
                        {"estimated_step_s", r.estimate.step_seconds}, {"stage", r.stage}};
  if (r.simulated_step)
    row.update({{"simulated_step_s", *r.simulated_step}, {"tflops_per_gpu", r.tflops_per_gpu}, {"mfu", r.mfu},
                {"bubble_fraction", r.bubble_fraction}, {"exposed_comm_s", r.exposed_comm_seconds}});
  return row;
}

}  // namespace

void write_plan_json(const std::string& dir, const PlanOutcome& outcome, const nlohmann::json& inputs) {
  std::size_t estimated = 0, simulated = 0;
  for (const PlanRow& r : outcome.rows) {
    estimated += r.estimate.step_seconds > 0;
    simulated += r.stage == "simulated";
  }
  nlohmann::json best = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min<std::size_t>(2, outcome.rows.size()); ++i)
    if (outcome.rows[i].place > 0) best.push_back(row_json(outcome.rows[i]));
  const nlohmann::json plan = {{"inputs", inputs},
                               {"combinations", outcome.combinations},
                               {"excluded", outcome.excluded},
                               {"candidates", outcome.rows.size()},
                               {"estimated", estimated},
                               {"simulated", simulated},
                               {"submitted", outcome.submitted},
                               {"best", best}};
  output::write_atomically(output::output_path(dir, output::OutputFile::PlanJson), plan.dump(2) + "\n");
}

void print_plan_table(std::ostream& out, const PlanOutcome& outcome, double tokens) {
  out << fmt::format("{:>5}  {:<44} {:>9} {:>11} {:>11} {:>6}\n", "place", "layout", "peak GiB", "estimate s",
                     "simulated s", "MFU");
  int shown = 0;
  for (const PlanRow& r : outcome.rows) {
    if (r.place == 0 || shown == 10) break;
    ++shown;
    const Layout& l = r.layout;
    std::string layout = fmt::format("tp{} pp{} dp{}{}{} mb{} {}{} {}", l["tp"], l["pp"], l["dp"],
                                     l["cp"] != "1" ? " cp" + l["cp"] : "", l["ep"] != "1" ? " ep" + l["ep"] : "",
                                     l["micro-batch"], l["schedule"], l["chunks"] != "0" ? " v" + l["chunks"] : "",
                                     l["recompute"]);
    out << fmt::format("{:>5}  {:<44} {:>9.1f} {:>11.4f} {:>11} {:>6}\n", r.place, layout,
                       r.estimate.peak_memory_bytes / kGiB, r.estimate.step_seconds,
                       r.simulated_step ? fmt::format("{:.4f}", *r.simulated_step) : "-",
                       r.simulated_step ? fmt::format("{:.3f}", r.mfu) : "-");
  }
  if (outcome.rows.size() >= 2 && outcome.rows[1].simulated_step && outcome.rows[0].simulated_step) {
    const PlanRow &best = outcome.rows[0], &second = outcome.rows[1];
    out << fmt::format(
        "runner-up: {:.2f} % slower; bubble {:.1f} % against {:.1f} %, exposed communication {:.3f} against {:.3f} s, "
        "peak memory {:.1f} against {:.1f} GiB\n",
        100 * (*second.simulated_step / *best.simulated_step - 1), 100 * second.bubble_fraction,
        100 * best.bubble_fraction, second.exposed_comm_seconds, best.exposed_comm_seconds,
        second.estimate.peak_memory_bytes / kGiB, best.estimate.peak_memory_bytes / kGiB);
  }
  // Each cluster size's best (one line with one size), and with --tokens what it takes to train.
  std::vector<int> sizes;
  for (const PlanRow& r : outcome.rows) {
    if (r.place == 0 || std::find(sizes.begin(), sizes.end(), r.layout.gpus()) != sizes.end()) continue;
    sizes.push_back(r.layout.gpus());
    const double step = r.simulated_step ? *r.simulated_step : r.estimate.step_seconds;
    const double seconds = tokens / outcome.tokens_per_step * step;
    if (tokens > 0)
      out << fmt::format("{} GPUs, place {}: {:.4f} s a step; to train on {:.3g} tokens {:.1f} days, {:.4g} GPU-hours\n",
                         r.layout.gpus(), r.place, step, tokens, seconds / 86400, seconds * r.layout.gpus() / 3600);
    else if (r.place > 1)
      out << fmt::format("{} GPUs: best at place {}, {:.4f} s a step\n", r.layout.gpus(), r.place, step);
  }
}

}  // namespace pipegrid::plan
