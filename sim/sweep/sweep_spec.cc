#include "sim/sweep/sweep_spec.h"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "common/input_error.h"
#include "common/message_text.h"
#include "sim/input/option_schema.h"
#include "sim/run/limits.h"

namespace pipegrid::sweep {

namespace {

using input::Experiment;
using input::OptionSpec;

std::string where(const std::string& source, const toml::node& node) {
  return fmt::format("{}:{}:{}", source, node.source().begin.line, node.source().begin.column);
}

// One dimension of the product: one key (an axis) or several moving together (a zip group), each
// point the checked values of its keys.
struct Dimension {
  std::vector<const OptionSpec*> options;
  std::vector<std::vector<input::Value>> points;  // points[i][k]: the value of options[k] at point i
};

const toml::array& axis_list(const std::string& source, const std::string& path, const toml::node& node) {
  if (!input::is_experiment_key(path))
    throw InputError(fmt::format("{}: {}: unknown key", where(source, node), shown(path)));
  const toml::array* list = node.as_array();
  if (!list || list->empty())
    throw InputError(fmt::format("{}: {}: expected a non-empty list of values", where(source, node), path));
  return *list;
}

// The option an axis sets for the base experiment's command, and each value checked against it.
std::vector<input::Value> axis_values(const std::string& source, const std::string& path, const toml::array& list,
                                      input::Command command, const OptionSpec*& option) {
  const std::size_t dot = path.find('.');
  option = dot == std::string::npos ? nullptr
                                    : input::find_experiment_key(command, path.substr(0, dot), path.substr(dot + 1));
  if (!option)
    throw InputError(fmt::format("{}: {}: `pipegrid {}` has no such option", where(source, list), path,
                                 input::command_name(command)));
  std::vector<input::Value> values;
  for (const toml::node& node : list) {
    try {
      values.push_back(input::toml_value(*option, node));
    } catch (const input::BrokenRule& broken) {
      throw InputError(fmt::format("{}: {}: {}", where(source, node), path, broken.rule));
    }
  }
  return values;
}

Experiment read_base(const std::string& path, const toml::table& file) {
  const toml::node* b = file.get("base");
  if (!b) return input::read_experiment(toml::table{}, path);
  if (const auto* name = b->as_string()) {
    const std::string base_path = (std::filesystem::path(path).parent_path() / name->get()).string();
    return input::read_experiment(input::read_toml(base_path), base_path);
  }
  if (const auto* table = b->as_table()) return input::read_experiment(*table, path);
  throw InputError(fmt::format("{}: base: expected a file name or a table", where(path, *b)));
}

std::string axis_values_text(const std::vector<std::string>& axes, const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < axes.size(); ++i) text += fmt::format("{}{}={}", i ? " " : "", axes[i], values[i]);
  return text;
}

// Refuses a product this machine could not hold, before building it.
void check_size(const std::string& path, const std::vector<Dimension>& dimensions) {
  double product = 1;
  std::vector<std::string> factors;
  for (const Dimension& d : dimensions) {
    product *= static_cast<double>(d.points.size());
    factors.push_back(std::to_string(d.points.size()));
  }
  const double limit = std::floor(run::memory_limit_bytes() / kBytesPerConfiguration);
  if (product <= limit) return;
  throw InputError(
      fmt::format("{}: {:.2g} configurations ({}) need ~{}; the limit on this machine is {:.2g} "
                  "configurations (~{})",
                  path, product, fmt::join(factors, " × "), run::human_bytes(product * kBytesPerConfiguration), limit,
                  run::human_bytes(limit * kBytesPerConfiguration)));
}

}  // namespace

SweepSpec read_sweep(const std::string& path) {
  const toml::table file = input::read_toml(path);
  SweepSpec spec;
  spec.source = path;
  for (const auto& [name, node] : file) {
    const std::string key(name.str());
    if (key != "base" && key != "axes" && key != "zip")
      throw InputError(
          fmt::format("{}: {}: unknown key; a sweep has base, [axes] and [[zip]]", where(path, node), key));
  }
  const Experiment base = read_base(path, file);

  std::vector<Dimension> dimensions;
  std::set<std::string> seen;
  const auto claim = [&](const std::string& axis, const toml::node& node) {
    if (!seen.insert(axis).second) throw InputError(fmt::format("{}: {}: appears twice", where(path, node), axis));
    spec.axes.push_back(axis);
  };
  if (const toml::table* axes = file["axes"].as_table())
    for (const auto& [name, node] : *axes) {
      const std::string axis(name.str());
      const toml::array& list = axis_list(path, axis, node);
      claim(axis, node);
      Dimension d;
      d.options.emplace_back();
      for (input::Value& value : axis_values(path, axis, list, base.command(), d.options.back()))
        d.points.push_back({std::move(value)});
      dimensions.push_back(std::move(d));
    }
  if (const toml::array* zips = file["zip"].as_array())
    for (const toml::node& group_node : *zips) {
      const toml::table* group = group_node.as_table();
      if (!group) throw InputError(fmt::format("{}: zip: expected [[zip]] tables", where(path, group_node)));
      Dimension d;
      for (const auto& [name, node] : *group) {
        const std::string axis(name.str());
        const toml::array& list = axis_list(path, axis, node);
        if (!d.options.empty() && list.size() != d.points.size())
          throw InputError(fmt::format("{}: {}: {} values where this zip group's other lists have {}",
                                       where(path, node), axis, list.size(), d.points.size()));
        claim(axis, node);
        d.options.emplace_back();
        std::vector<input::Value> values = axis_values(path, axis, list, base.command(), d.options.back());
        d.points.resize(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) d.points[i].push_back(std::move(values[i]));
      }
      if (!d.options.empty()) dimensions.push_back(std::move(d));
    }
  check_size(path, dimensions);

  // The cartesian product, the last dimension varying fastest.
  std::map<std::string, std::size_t> first_with_id;
  std::vector<std::size_t> at(dimensions.size(), 0);
  for (std::size_t index = 0;; ++index) {
    Configuration c{index, "", {}, base};
    for (std::size_t d = 0; d < dimensions.size(); ++d)
      for (std::size_t k = 0; k < dimensions[d].options.size(); ++k) {
        const input::Value& value = dimensions[d].points[at[d]][k];
        c.experiment.values.set(*dimensions[d].options[k], value);
        c.values.push_back(input::value_text(value));
      }
    try {
      c.experiment.values.check_required();
    } catch (const InputError& e) {
      throw InputError(
          fmt::format("{}: configuration {} ({}): {}", path, index, axis_values_text(spec.axes, c.values), e.what()));
    }
    c.id = input::stable_hash(c.experiment.values.canonical_text());
    if (const auto [first, added] = first_with_id.emplace(c.id, index); !added)
      throw InputError(fmt::format("{}: configurations {} ({}) and {} ({}) are the same experiment", path,
                                   first->second,
                                   axis_values_text(spec.axes, spec.configurations[first->second].values), index,
                                   axis_values_text(spec.axes, c.values)));
    spec.configurations.push_back(std::move(c));
    std::size_t d = dimensions.size();
    while (d > 0 && ++at[d - 1] == dimensions[d - 1].points.size()) at[--d] = 0;
    if (d == 0) break;
  }
  return spec;
}

}  // namespace pipegrid::sweep
