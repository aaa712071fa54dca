// What a plan writes and prints: DIR/simulate.toml (the sweep that simulates the chosen layouts),
// plan.csv (one row per candidate), and the table of the best layouts on stdout.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/input/option_values.h"
#include "sim/plan/layout.h"
#include "sim/plan/plan_run.h"

namespace pipegrid::plan {

/// A sweep file: `base` as its base table, and one [[zip]] group holding each layout's options.
std::string simulate_sweep_text(const input::OptionValues& base, const std::vector<Layout>& layouts, bool moe);

/// Orders the rows and gives them their places: the simulated ones by simulated step, then the
/// estimated by estimate, ties by peak memory and then the layout's text; then the excluded.
void order_rows(std::vector<PlanRow>& rows);

/// DIR/plan.csv (its columns: output_files.h), whole or not at all.
void write_plan_csv(const std::string& dir, const std::vector<PlanRow>& rows);

/// DIR/plan.json: `inputs` (what was planned), the combinations, how many each rule and stage
/// excluded, how many were estimated and simulated, and the best two rows.
void write_plan_json(const std::string& dir, const PlanOutcome& outcome, const nlohmann::json& inputs);

/// The best layouts as a table, and why the runner-up lost; with `tokens` > 0 the days and GPU-hours
/// the best would take to train on them.
void print_plan_table(std::ostream& out, const PlanOutcome& outcome, double tokens);

}  // namespace pipegrid::plan
