#include "sim/sweep/sweep_spec.h"

#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "common/input_error.h"
#include "sim/sweep/experiment_file.h"

namespace pipegrid::sweep {

namespace {

std::string where(const std::string& source, const toml::node& node) {
  return fmt::format("{}:{}:{}", source, node.source().begin.line, node.source().begin.column);
}

// One dimension of the product: one key (an axis) or several moving together (a zip group).
struct Dimension {
  std::vector<std::string> keys;
  std::vector<std::vector<const toml::node*>> points;  // points[i][k]: the value of keys[k] at point i
};

void set_value(toml::table& experiment, const std::string& path, const toml::node& value) {
  const auto dot = path.find('.');
  const std::string section = path.substr(0, dot), key = path.substr(dot + 1);
  if (!experiment.contains(section)) experiment.insert(section, toml::table{});
  toml::table& table = *experiment[section].as_table();
  value.visit([&](const auto& v) { table.insert_or_assign(key, v); });
}

const toml::array& axis_list(const std::string& source, const std::string& path, const toml::node& node) {
  if (!find_key(path)) throw InputError(fmt::format("{}: {}: unknown key", where(source, node), path));
  const toml::array* list = node.as_array();
  if (!list || list->empty())
    throw InputError(fmt::format("{}: {}: expected a non-empty list of values", where(source, node), path));
  return *list;
}

}  // namespace

std::string value_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  return "?";
}

SweepSpec read_sweep(const std::string& path) {
  const toml::table file = read_toml(path);
  SweepSpec spec;
  spec.source = path;
  toml::table base;
  if (const toml::node* b = file.get("base")) {
    if (const auto* name = b->as_string()) {
      const auto base_path = std::filesystem::path(path).parent_path() / name->get();
      base = read_toml(base_path.string());
    } else if (const auto* table = b->as_table()) {
      base = *table;
    } else {
      throw InputError(fmt::format("{}: base: expected a file name or a table", where(path, *b)));
    }
  }
  for (const auto& [name, node] : file) {
    const std::string key(name.str());
    if (key != "base" && key != "axes" && key != "zip")
      throw InputError(fmt::format("{}: {}: unknown key; a sweep has base, [axes] and [[zip]]", where(path, node), key));
  }

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
      Dimension d{{axis}, {}};
      for (const toml::node& value : list) d.points.push_back({&value});
      dimensions.push_back(std::move(d));
    }
  if (const toml::array* zips = file["zip"].as_array())
    for (const toml::node& group_node : *zips) {
      const toml::table* group = group_node.as_table();
      if (!group) throw InputError(fmt::format("{}: zip: expected [[zip]] tables", where(path, group_node)));
      Dimension d;
      std::size_t length = 0;
      for (const auto& [name, node] : *group) {
        const std::string axis(name.str());
        const toml::array& list = axis_list(path, axis, node);
        if (!d.keys.empty() && list.size() != length)
          throw InputError(fmt::format("{}: {}: {} values where this zip group's other lists have {}",
                                       where(path, node), axis, list.size(), length));
        length = list.size();
        claim(axis, node);
        d.keys.push_back(axis);
        d.points.resize(length);
        for (std::size_t i = 0; i < length; ++i) d.points[i].push_back(list.get(i));
      }
      if (!d.keys.empty()) dimensions.push_back(std::move(d));
    }

  // The cartesian product, the last dimension varying fastest.
  std::vector<std::size_t> at(dimensions.size(), 0);
  for (std::size_t index = 0;; ++index) {
    Configuration c;
    c.index = index;
    c.experiment = base;
    for (std::size_t d = 0; d < dimensions.size(); ++d)
      for (std::size_t k = 0; k < dimensions[d].keys.size(); ++k) {
        const toml::node& value = *dimensions[d].points[at[d]][k];
        set_value(c.experiment, dimensions[d].keys[k], value);
        c.values.push_back(value_text(value));
      }
    c.id = stable_hash(canonical_text(c.experiment));
    spec.configurations.push_back(std::move(c));
    std::size_t d = dimensions.size();
    while (d > 0 && ++at[d - 1] == dimensions[d - 1].points.size()) at[--d] = 0;
    if (d == 0) break;
  }
  return spec;
}

}  // namespace pipegrid::sweep
