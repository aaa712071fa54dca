// Reading fields of the JSON files a report shows without trusting their shape: a field of the wrong
// type is treated as absent, so that a file from another pipegrid version shows what it can.
#pragma once

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace pipegrid::report {

/// `j[key]` if `j` is an object holding it, else null.
inline const nlohmann::json& field(const nlohmann::json& j, std::string_view key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  const auto at = j.find(key);
  return at == j.end() ? kNull : *at;
}

inline std::optional<double> number_field(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = field(j, key);
  if (!v.is_number()) return std::nullopt;
  const double x = v.get<double>();
  return std::isfinite(x) ? std::optional(x) : std::nullopt;
}

/// A whole number that fits an int (a rank): a file edited to 1e308 or 2.5 holds none, not a cast's UB.
inline std::optional<int> int_field(const nlohmann::json& j, std::string_view key) {
  const auto x = number_field(j, key);
  if (!x || *x != std::trunc(*x) || *x < std::numeric_limits<int>::min() || *x > std::numeric_limits<int>::max())
    return std::nullopt;
  return static_cast<int>(*x);
}

inline std::optional<std::string> text_field(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json& v = field(j, key);
  return v.is_string() ? std::optional(v.get<std::string>()) : std::nullopt;
}

/// A scalar as the page prints it: strings as they are, integers whole, other numbers with up to 10
/// significant digits (2.039e+12, not 2039000000000.0), the rest as JSON.
inline std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.10g}", v.get<double>());
  return v.dump();
}

}  // namespace pipegrid::report
