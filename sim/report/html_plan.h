// A plan's folder as one page (`pipegrid report DIR` on what `pipegrid plan` wrote, or its --report):
// what was planned, what each stage kept, the best layouts, the picture of step time against memory.
#pragma once

#include <string>

namespace pipegrid::report {

/// Whether DIR holds a plan (plan.json).
bool is_plan_folder(const std::string& dir);

/// The page, from DIR/plan.json, DIR/plan.csv and DIR/pareto.png (inlined). InputError naming a
/// malformed file.
std::string plan_page(const std::string& dir);

}  // namespace pipegrid::report
