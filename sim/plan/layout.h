// One candidate layout of `pipegrid plan`: a value for each axis of the search, named as simulate's
// options, written as one line ("tp=8 pp=8 dp=16 … layer-split=balanced") that plan.csv, --also and
// the tie-break use, and turned into simulate's options.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "sim/input/option_values.h"

namespace pipegrid::plan {

/// The axes, in the order a layout is written. dp and microbatches follow from the others.
inline constexpr std::array<std::string_view, 18> kAxes{
    "tp",        "pp",     "dp",     "cp",        "ep",        "micro-batch", "microbatches",
    "schedule",  "chunks", "recompute", "sequence-parallel", "zero",  "grad-overlap", "precision",
    "placement", "cp-algo", "tp-comm-overlap", "layer-split"};

struct Layout {
  std::array<std::string, kAxes.size()> values;  // by kAxes

  const std::string& operator[](std::string_view axis) const;
  std::string& operator[](std::string_view axis);
  int number(std::string_view axis) const;  // an integer axis's value
  bool on(std::string_view axis) const { return (*this)[axis] == "on"; }
  int gpus() const { return number("tp") * number("pp") * number("dp") * number("cp"); }

  /// "tp=8 pp=8 …", every axis in kAxes' order.
  std::string text() const;
  /// Reads text() back. InputError naming `what` for an unknown axis, one missing, or a bad value.
  static Layout parse(std::string_view text, std::string_view what);

  /// Sets the layout's options on `values` (a simulate command's): --tp, --pp, …, --layer-split.
  /// `moe`: the model has experts (--ep is set only then).
  void apply(input::OptionValues& options, bool moe) const;
};

std::size_t axis_index(std::string_view axis);  // std::invalid_argument for an unknown axis

}  // namespace pipegrid::plan
