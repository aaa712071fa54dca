// Sweep files: a base experiment and axes over any of its keys — their cartesian product, with `zip`
// groups for lists that move together — expanded into configurations, each an experiment of its own,
// every value checked against the schema as the sweep file is read.
#pragma once

#include <string>
#include <vector>

#include "sim/input/experiment_file.h"

namespace pipegrid::sweep {

/// One configuration: its place in the sweep, the values its axes take (as text, by axis), and the
/// resolved experiment. `id` hashes the resolved experiment's options, so an unchanged configuration
/// keeps its id when the sweep file changes around it.
struct Configuration {
  std::size_t index = 0;
  std::string id;
  std::vector<std::string> values;  // in the order of SweepSpec::axes
  input::Experiment experiment;
};

struct SweepSpec {
  std::string source;             // the sweep file
  std::vector<std::string> axes;  // "section.key": the [axes] sorted (a TOML table's order), then zip keys by group
  std::vector<Configuration> configurations;
};

/// Bytes one configuration costs while a sweep holds it: measured, an upper bound (docs/performance.md).
inline constexpr double kBytesPerConfiguration = 16e3;

/// Reads SWEEP.toml (docs/simulate.md, "Experiments and sweeps"): `base` (an experiment file relative to the
/// sweep, or a [base] table), [axes] of "section.key" = [values], [[zip]] groups of lists of one length.
/// Throws InputError `FILE:LINE:COLUMN: …` for an unknown key, an empty list, a value its option
/// refuses, zip lists of different lengths, an axis given twice or a bad base; `FILE: …` for more
/// configurations than this machine holds, two that are one experiment, or one lacking a required option.
SweepSpec read_sweep(const std::string& path);

}  // namespace pipegrid::sweep
