// A value a user names (--tp-comm analytic, --comm-plan megatron): the names and the values they stand
// for, declared once in a table next to the type. The option schema lists the table's names as the
// option's choices and checks what is given against them; the run layer reads the value by its name,
// and summary.json echoes the value by its first name.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid {

template <typename T>
struct Named {
  std::string_view name;
  T value;
};

/// Every name of the table, in its order (a value's other names, its aliases, included).
template <typename T>
std::vector<std::string> names_of(std::span<const Named<T>> table) {
  std::vector<std::string> names;
  for (const Named<T>& entry : table) names.emplace_back(entry.name);
  return names;
}

/// The value `name` stands for. The schema has checked the name against the table's: one it does not
/// hold is a bug in the caller (std::logic_error).
template <typename T>
T value_named(std::span<const Named<T>> table, std::string_view name) {
  for (const Named<T>& entry : table)
    if (entry.name == name) return entry.value;
  throw std::logic_error("value_named: " + std::string(name) + " is not a name of the option's table");
}

/// The first name of `value`: how summary.json and the logs say it.
template <typename T>
std::string_view name_of(std::span<const Named<T>> table, T value) {
  for (const Named<T>& entry : table)
    if (entry.value == value) return entry.name;
  throw std::logic_error("name_of: a value missing from its table");
}

}  // namespace pipegrid
