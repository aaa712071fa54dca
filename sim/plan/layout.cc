#include "sim/plan/layout.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <stdexcept>

#include "common/input_error.h"
#include "sim/input/option_schema.h"

namespace pipegrid::plan {

std::size_t axis_index(std::string_view axis) {
  const auto it = std::find(kAxes.begin(), kAxes.end(), axis);
  if (it == kAxes.end()) throw std::invalid_argument(fmt::format("no plan axis {}", axis));
  return static_cast<std::size_t>(it - kAxes.begin());
}

const std::string& Layout::operator[](std::string_view axis) const { return values[axis_index(axis)]; }
std::string& Layout::operator[](std::string_view axis) { return values[axis_index(axis)]; }

int Layout::number(std::string_view axis) const {
  const std::string& text = (*this)[axis];
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw std::logic_error(fmt::format("plan layout: {}={} is not a number", axis, text));
  return value;
}

std::string Layout::text() const {
  std::string out;
  for (std::size_t i = 0; i < kAxes.size(); ++i) out += fmt::format("{}{}={}", i ? " " : "", kAxes[i], values[i]);
  return out;
}

Layout Layout::parse(std::string_view text, std::string_view what) {
  Layout layout;
  std::array<bool, kAxes.size()> seen{};
  std::size_t begin = 0;
  while (begin < text.size()) {
    if (text[begin] == ' ') {
      ++begin;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', begin), text.size());
    const std::string_view item = text.substr(begin, end - begin);
    const std::size_t equals = item.find('=');
    const std::string_view axis = item.substr(0, equals);
    if (equals == std::string_view::npos || std::find(kAxes.begin(), kAxes.end(), axis) == kAxes.end())
      throw InputError(fmt::format("{} \"{}\": expected AXIS=VALUE with AXIS one of {}", what, item, fmt::join(kAxes, ", ")));
    const std::size_t i = axis_index(axis);
    layout.values[i] = std::string(item.substr(equals + 1));
    seen[i] = true;
    begin = end;
  }
  for (std::size_t i = 0; i < kAxes.size(); ++i)
    if (!seen[i]) throw InputError(fmt::format("{}: {} is missing (a layout gives every axis, as plan.csv writes it)", what, kAxes[i]));
  return layout;
}

void Layout::apply(input::OptionValues& options, bool moe) const {
  const auto option = [&](std::string_view flag) -> const input::OptionSpec& {
    const input::OptionSpec* spec = input::find_option(options.command(), flag);
    if (!spec) throw std::logic_error(fmt::format("plan: simulate has no --{}", flag));
    return *spec;
  };
  for (const char* axis : {"tp", "pp", "dp", "cp", "micro-batch", "microbatches", "schedule", "chunks", "recompute",
                           "zero", "grad-overlap", "precision", "placement", "cp-algo", "layer-split"})
    options.set_text(option(axis), (*this)[axis]);
  if (moe) options.set_text(option("ep"), (*this)["ep"]);
  options.set(option("sequence-parallel"), on("sequence-parallel"));
  options.set(option("tp-comm-overlap"), on("tp-comm-overlap"));
}

}  // namespace pipegrid::plan
