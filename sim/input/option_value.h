// The value of one option, read from the command line's text or from an experiment file's TOML, and
// checked against the option's rules in one place: its type, its range (numbers are finite), its
// choices or syntax.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <variant>
#include <vector>

#include "sim/input/option_spec.h"

namespace pipegrid::input {

/// By ValueType: Integer int64, Number double, Text / Choice / Path string, Flag bool, HostPair two
/// strings.
using Value = std::variant<std::int64_t, double, std::string, bool, std::vector<std::string>>;

/// The rule a value breaks, without naming where it came from: the caller prefixes "--tp 0: " or
/// "exp.toml:3:6: [parallel] tp = 0: ".
struct BrokenRule {
  std::string rule;
};

/// Reads command-line text: "8", "0.6", "inf" (refused: not finite), "1f1b". Throws BrokenRule; for a
/// Path, also when it names a directory ("is a directory, expected a file").
Value parse_value(const OptionSpec& option, std::string_view text);
/// Reads a TOML node: an integer for Integer, an integer or a float for Number, a string for Text,
/// Choice and Path, a boolean for Flag. Throws BrokenRule ("expected an integer, got a string", or the
/// value's own rule).
Value toml_value(const OptionSpec& option, const toml::node& node);

/// The range as an interval, for help and documentation: "[1, 2147483647]", "(0, 1]", "[0, inf)".
std::string range_text(const Bounds& bounds);

/// "a string", "an integer", "a number", "a boolean", "a table", "an array", "a date or time".
std::string toml_type_name(const toml::node& node);

/// The value as pipegrid writes it back: the shortest text that reads back as the same value.
std::string value_text(const Value& value);

}  // namespace pipegrid::input
