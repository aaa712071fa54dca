#include "sim/model/hf_fields.h"

#include <cmath>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid::model {

namespace {

// What a JSON value is, in the words of an error line (its text could be a megabyte long).
std::string_view kind_of(const nlohmann::json& value) {
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "true or false";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_null()) return "null";
  return "a number";
}

}  // namespace

void HfFields::fail(std::string_view field, std::string_view rule) const {
  throw InputError(fmt::format("{}: {}: {}", where_, field, rule));
}

const nlohmann::json* HfFields::find(std::string_view field) const {
  const auto at = config_.find(field);
  if (at == config_.end() || at->is_null()) return nullptr;
  return &*at;
}

bool HfFields::has(std::string_view field) const { return find(field) != nullptr; }

long long HfFields::whole(std::string_view field, const nlohmann::json& value, SizeRange range) const {
  const auto rule = [&] { return fmt::format("must be a whole number from {} to {}", range.min, range.max); };
  if (value.is_number_unsigned()) {
    // Past the range already when it does not fit a signed 64-bit integer.
    const auto x = value.get<unsigned long long>();
    if (x > static_cast<unsigned long long>(range.max) || static_cast<long long>(x) < range.min)
      fail(field, fmt::format("{} {}", x, rule()));
    return static_cast<long long>(x);
  }
  if (value.is_number_integer()) {
    const auto x = value.get<long long>();
    if (x < range.min || x > range.max) fail(field, fmt::format("{} {}", x, rule()));
    return x;
  }
  if (value.is_number_float()) fail(field, fmt::format("{:g} {}", value.get<double>(), rule()));
  fail(field, fmt::format("{}, {}", kind_of(value), rule()));
}

int HfFields::size(std::string_view field, SizeRange range) const {
  const nlohmann::json* value = find(field);
  if (!value) fail(field, "missing");
  return static_cast<int>(whole(field, *value, range));
}

int HfFields::size_or(std::string_view field, int fallback, SizeRange range) const {
  const nlohmann::json* value = find(field);
  return value ? static_cast<int>(whole(field, *value, range)) : fallback;
}

bool HfFields::flag_or(std::string_view field, bool fallback) const {
  const nlohmann::json* value = find(field);
  if (!value) return fallback;
  if (!value->is_boolean()) fail(field, fmt::format("{}, must be true or false", kind_of(*value)));
  return value->get<bool>();
}

double HfFields::number_or(std::string_view field, double fallback, double min, double max) const {
  const nlohmann::json* value = find(field);
  if (!value) return fallback;
  if (!value->is_number())
    fail(field, fmt::format("{}, must be a number from {:g} to {:g}", kind_of(*value), min, max));
  const double x = value->get<double>();
  if (!std::isfinite(x) || x < min || x > max) fail(field, fmt::format("{:g} must be from {:g} to {:g}", x, min, max));
  return x;
}

std::string HfFields::text_or(std::string_view field, std::string_view fallback) const {
  const nlohmann::json* value = find(field);
  if (!value) return std::string(fallback);
  if (!value->is_string()) fail(field, fmt::format("{}, must be a string", kind_of(*value)));
  return value->get<std::string>();
}

std::vector<long long> HfFields::sizes_or_empty(std::string_view field, SizeRange range) const {
  const nlohmann::json* value = find(field);
  if (!value) return {};
  if (!value->is_array()) fail(field, fmt::format("{}, must be an array of whole numbers", kind_of(*value)));
  std::vector<long long> sizes;
  for (const nlohmann::json& element : *value) sizes.push_back(whole(field, element, range));
  return sizes;
}

std::string HfFields::first_architecture() const {
  const nlohmann::json* value = find("architectures");
  if (!value) fail("architectures", "missing");
  if (!value->is_array() || value->empty() || !value->front().is_string())
    fail("architectures", "must be an array of class names, e.g. [\"LlamaForCausalLM\"]");
  return value->front().get<std::string>();
}

}  // namespace pipegrid::model
