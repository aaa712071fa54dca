// What the schema's tables share (option_schema.cc and model_options.cc): the ranges options are
// held to and the model's entries, declared in their own file. Internal to sim/input.
#pragma once

#include <climits>
#include <vector>

#include "sim/input/option_spec.h"

namespace pipegrid::input::schema {

// Ranges. Integers are stored in an int everywhere past the schema, so none exceeds INT_MAX; the
// model's sizes are capped where their products (parameters, bytes) would leave 64-bit integers.
inline constexpr double kIntMax = INT_MAX;
inline Bounds at_least(double min, double max = kIntMax) { return {.min = min, .max = max}; }
inline Bounds not_negative(double max) { return {.min = 0, .max = max}; }
inline Bounds interval(double min, bool min_open, double max, bool max_open) {
  return {.min = min, .max = max, .min_open = min_open, .max_open = max_open, .interval = true};
}

// Times and sizes no run can need, but small enough that every product pipegrid forms of them
// (FLOPs = time × speed, bytes × steps) stays a finite double.
inline constexpr double kMaxSeconds = 1e9;
inline constexpr double kMaxBytes = 1e15;

inline constexpr Commands kSim{Command::Simulate};
/// The model's entries, in the table's order: the model and how it is cut, then mixture of experts.
std::vector<OptionSpec> model_options();
/// `pipegrid plan`'s own entries (plan_options.cc).
std::vector<OptionSpec> plan_options();

}  // namespace pipegrid::input::schema
