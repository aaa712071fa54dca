// The fields of a Hugging Face config.json read without trusting their shape: every read names the
// field in its error, so a config with a string where a size belongs, a size of 1e30 or a missing
// hidden_size is one line of exit 2, never an exception of the JSON library or a cast's UB.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::model {

/// The sizes a config may give, capped as the option schema caps the matching flags.
struct SizeRange {
  long long min = 1;
  long long max = 0;
};

class HfFields {
 public:
  HfFields(const nlohmann::json& config, std::string_view where) : config_(config), where_(where) {}

  /// Throws InputError `WHERE: FIELD: RULE`.
  [[noreturn]] void fail(std::string_view field, std::string_view rule) const;

  /// Present and not null (transformers reads a null as "use the default").
  bool has(std::string_view field) const;
  /// A whole number within `range`; missing or null is an error.
  int size(std::string_view field, SizeRange range) const;
  /// As size(), or `fallback` when the field is missing or null (the configuration class's default).
  int size_or(std::string_view field, int fallback, SizeRange range) const;
  bool flag_or(std::string_view field, bool fallback) const;
  /// A finite number in [min, max], or `fallback`.
  double number_or(std::string_view field, double fallback, double min, double max) const;
  std::string text_or(std::string_view field, std::string_view fallback) const;
  /// An array of whole numbers (Qwen's mlp_only_layers), empty when missing or null.
  std::vector<long long> sizes_or_empty(std::string_view field, SizeRange range) const;
  /// architectures[0]; missing, empty or not strings is an error.
  std::string first_architecture() const;

 private:
  const nlohmann::json* find(std::string_view field) const;
  long long whole(std::string_view field, const nlohmann::json& value, SizeRange range) const;

  const nlohmann::json& config_;
  std::string_view where_;
};

}  // namespace pipegrid::model
