// The values of one command's options, wherever they came from — the command line, an experiment
// file, a sweep's axes — each checked against the schema when it was set. The run layer reads them
// typed; a value never given reads as the option's default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input/option_spec.h"
#include "sim/input/option_value.h"

namespace pipegrid::input {

class OptionValues {
 public:
  explicit OptionValues(Command command);
  Command command() const { return command_; }

  /// Sets an option of this command from command-line text. InputError "--tp 0: must be at least 1"
  /// (for a positional option, "FILE: …").
  void set_text(const OptionSpec& option, std::string_view text);
  /// Sets an already checked value.
  void set(const OptionSpec& option, Value value);
  /// Every value given in `overrides` (of the same command) replaces this one's.
  void merge(const OptionValues& overrides);

  /// Whether the option was given (a default does not count).
  bool has(std::string_view flag) const;
  /// The given value, else the default. Asking for an option the command does not have, or for one
  /// without a value or default, is a bug in the caller (std::logic_error): required options are
  /// checked by check_required.
  std::int64_t integer(std::string_view flag) const;
  double number(std::string_view flag) const;
  const std::string& text(std::string_view flag) const;  // Text, Choice, Path ("" when unset, no default)
  bool flag(std::string_view flag) const;
  std::vector<std::string> names(std::string_view flag) const;  // HostPair (empty when unset)
  /// The given value only.
  std::optional<int> given_int(std::string_view flag) const;
  std::optional<double> given_number(std::string_view flag) const;

  /// InputError for the first required option (in schema order) that has no value: "--platform or
  /// --preset: required by pipegrid simulate; it is the SimGrid platform XML (…)", or that is given
  /// together with the option it stands instead of (OptionSpec::instead): "--platform and --preset: …".
  void check_required() const;

  /// The options given, in schema order.
  std::vector<std::pair<const OptionSpec*, const Value*>> given() const;
  /// What identifies the experiment: the command, then every option that changes what runs
  /// (identity), given or by default, one "section.key=value" line each in schema order.
  std::string canonical_text() const;

 private:
  const OptionSpec& spec(std::string_view flag) const;
  const Value* value_or_default(std::string_view flag) const;

  Command command_;
  std::map<const OptionSpec*, Value> given_;             // keyed by the schema's entries, so in schema order
  mutable std::map<const OptionSpec*, Value> defaults_;  // parsed on first use
};

}  // namespace pipegrid::input
