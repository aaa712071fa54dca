#include "sim/input/option_value.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <system_error>

#include "common/number_format.h"
#include "sim/input/relative_paths.h"

namespace pipegrid::input {

namespace {

std::string bound_text(double value) { return std::isinf(value) ? (value > 0 ? "inf" : "-inf") : format_number(value); }

// The rule a number outside its bounds breaks.
std::string out_of_range(const Bounds& b, double value) {
  if (b.interval) return "must be in " + range_text(b);
  const bool below = b.min_open ? !(value > b.min) : !(value >= b.min);
  if (below) {
    if (b.min == 0) return b.min_open ? "must be positive" : "must not be negative";
    return fmt::format("must be {} {}", b.min_open ? "greater than" : "at least", bound_text(b.min));
  }
  return fmt::format("must be {} {}", b.max_open ? "less than" : "at most", bound_text(b.max));
}

bool within(const Bounds& b, double value) {
  const bool above_min = b.min_open ? value > b.min : value >= b.min;
  const bool below_max = b.max_open ? value < b.max : value <= b.max;
  return above_min && below_max;
}

Value checked_integer(const OptionSpec& option, std::int64_t value) {
  if (!within(option.bounds, static_cast<double>(value)))
    throw BrokenRule{out_of_range(option.bounds, static_cast<double>(value))};
  return value;
}

Value checked_number(const OptionSpec& option, double value) {
  if (!std::isfinite(value)) throw BrokenRule{"must be a finite number"};
  if (!within(option.bounds, value)) throw BrokenRule{out_of_range(option.bounds, value)};
  return value;
}

Value checked_text(const OptionSpec& option, std::string text) {
  switch (option.type) {
    case ValueType::Choice: {
      for (const std::string& choice : option.choices)
        if (choice == text) return text;
      throw BrokenRule{fmt::format("must be one of {}", fmt::join(option.choices, ", "))};
    }
    case ValueType::Path: {
      if (text.empty()) throw BrokenRule{"must name a file"};
      // Read as a file, a directory gives an empty read or a rule about something else.
      std::error_code error;
      if (std::filesystem::is_directory(text, error)) throw BrokenRule{"is a directory, expected a file"};
      return text;
    }
    default:
      if (option.syntax)
        if (std::string rule = option.syntax(text); !rule.empty()) throw BrokenRule{std::move(rule)};
      return text;
  }
}

}  // namespace

std::string toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    default:
      return "a date or time";
  }
}

std::string range_text(const Bounds& b) {
  return fmt::format("{}{}, {}{}", b.min_open || std::isinf(b.min) ? '(' : '[', bound_text(b.min), bound_text(b.max),
                     b.max_open || std::isinf(b.max) ? ')' : ']');
}

Value parse_value(const OptionSpec& option, std::string_view text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  switch (option.type) {
    case ValueType::Integer: {
      std::int64_t value = 0;
      const auto [ptr, error] = std::from_chars(begin, end, value);
      if (error == std::errc::result_out_of_range)
        throw BrokenRule{out_of_range(option.bounds, text.front() == '-' ? -INFINITY : INFINITY)};
      if (error != std::errc() || ptr != end) throw BrokenRule{"expected an integer"};
      return checked_integer(option, value);
    }
    case ValueType::Number: {
      double value = 0;
      const auto [ptr, error] = std::from_chars(begin, end, value);
      if (error == std::errc::result_out_of_range && ptr == end) throw BrokenRule{"must be a finite number"};
      if (error != std::errc() || ptr != end) throw BrokenRule{"expected a number"};
      return checked_number(option, value);
    }
    case ValueType::Flag:
      if (text == "true") return true;
      if (text == "false") return false;
      throw BrokenRule{"expected true or false"};
    case ValueType::Texts:
      return std::vector<std::string>{std::string(text)};
    case ValueType::HostPair: {
      const std::size_t space = text.find(' ');
      if (space == std::string_view::npos || space == 0 || space + 1 == text.size() ||
          text.find(' ', space + 1) != std::string_view::npos)
        throw BrokenRule{"expected two host names"};
      return std::vector<std::string>{std::string(text.substr(0, space)), std::string(text.substr(space + 1))};
    }
    default:
      return checked_text(option, std::string(text));
  }
}

Value toml_value(const OptionSpec& option, const toml::node& node) {
  const auto expected = [&](const char* what) {
    return BrokenRule{fmt::format("expected {}, got {}", what, toml_type_name(node))};
  };
  switch (option.type) {
    case ValueType::Integer:
      if (!node.is_integer()) throw expected("an integer");
      return checked_integer(option, node.as_integer()->get());
    case ValueType::Number:
      if (node.is_integer()) return checked_number(option, static_cast<double>(node.as_integer()->get()));
      if (!node.is_floating_point()) throw expected("a number");
      return checked_number(option, node.as_floating_point()->get());
    case ValueType::Flag:
      if (!node.is_boolean()) throw expected("a boolean");
      return node.as_boolean()->get();
    case ValueType::Texts: {
      const toml::array* texts = node.as_array();
      std::vector<std::string> values;
      for (std::size_t i = 0; texts && i < texts->size(); ++i) {
        if (!texts->get(i)->is_string()) throw expected("an array of strings");
        values.push_back(texts->get(i)->as_string()->get());
      }
      if (!texts) throw expected("an array of strings");
      return values;
    }
    case ValueType::HostPair: {
      const toml::array* pair = node.as_array();
      if (!pair || pair->size() != 2 || !pair->get(0)->is_string() || !pair->get(1)->is_string())
        throw expected("two host names");
      return std::vector<std::string>{pair->get(0)->as_string()->get(), pair->get(1)->as_string()->get()};
    }
    default: {
      if (!node.is_string()) throw expected("a string");
      // A path in a file is taken from that file's folder (relative_paths.h).
      const std::shared_ptr<const std::string>& file = node.source().path;
      const std::filesystem::path folder = file ? std::filesystem::path(*file).parent_path() : std::filesystem::path();
      return checked_text(option, path_from_folder(option, node.as_string()->get(), folder));
    }
  }
}

std::string value_text(const Value& value) {
  struct Text {
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::vector<std::string>& v) const { return fmt::format("{}", fmt::join(v, " ")); }
  };
  return std::visit(Text{}, value);
}

}  // namespace pipegrid::input
