// The space `pipegrid plan` searches: each axis's values (its defaults, or --space and the layout
// options given), and the enumeration of every combination, each either a candidate or excluded
// under the first rule it breaks (docs/guide/planning.md lists the rules).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/input/option_values.h"
#include "sim/model/transformer.h"
#include "sim/plan/layout.h"

namespace pipegrid::plan {

/// What the enumeration needs of the job: the model's sizes and the cluster's.
struct Job {
  model::Transformer model;
  int gpus = 0;
  int gpus_per_node = 0;
  int global_batch = 0;  // sequences a step
  bool allow_tp_across_nodes = false;
};

/// The values of each axis (dp and microbatches follow from the others). An axis absent from
/// `values` takes its default (space.cc says which), which may depend on the layout's other axes.
struct Space {
  std::map<std::string, std::vector<std::string>, std::less<>> values;
};

/// --space AXIS=V1,V2,… (each a value simulate's option of that name takes), and the layout options
/// given to plan itself (--tp 8 is --space tp=8). InputError naming --space for an unknown axis, dp or
/// microbatches (they follow from the GPUs and the global batch), an axis given twice or no value.
Space read_space(const input::OptionValues& values);

struct Enumeration {
  std::vector<Layout> candidates;  // in enumeration order
  std::map<std::string, std::size_t> excluded;  // rule → combinations it excluded
  std::size_t combinations = 0;   // candidates + every excluded one
};

/// Every combination of the axes' values for `job`, in a fixed order: the candidates, and under which
/// rule each other one was excluded.
Enumeration enumerate(const Job& job, const Space& space);

}  // namespace pipegrid::plan
