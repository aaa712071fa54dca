// Fuzzes the numeric (and every other) option parser (sim/input/option_value.h): the first byte
// picks an option of option_schema(), the rest is its command-line text for parse_value. BrokenRule
// is the expected rejection and must state a rule. An accepted value must have the option's type;
// an Integer or Number must be finite and within the option's bounds (an Integer within an int, as
// the schema promises); a Choice one of its choices. value_text of it must parse back to the same
// value, and the same value given in TOML (toml_value) must be accepted as the same. A refusal's error
// line (OptionValues::set_text) must end in the rule and show at most kShownBytes of the value.
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "common/message_text.h"
#include "fuzz_support.h"
#include "sim/input/option_schema.h"
#include "sim/input/option_value.h"
#include "sim/input/option_values.h"

using namespace pipegrid;
using namespace pipegrid::input;

namespace {

bool within(const Bounds& b, double value) {
  return (b.min_open ? value > b.min : value >= b.min) && (b.max_open ? value < b.max : value <= b.max);
}

// The value as a TOML node, as an experiment file would give it.
toml::array as_toml(const Value& value) {
  toml::array node;
  struct Push {
    toml::array& node;
    void operator()(std::int64_t v) const { node.push_back(v); }
    void operator()(double v) const { node.push_back(v); }
    void operator()(const std::string& v) const { node.push_back(v); }
    void operator()(bool v) const { node.push_back(v); }
    void operator()(const std::vector<std::string>& v) const {
      toml::array names;
      for (const std::string& name : v) names.push_back(name);
      node.push_back(std::move(names));
    }
  };
  std::visit(Push{node}, value);
  return node;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::vector<OptionSpec>& schema = option_schema();
  const OptionSpec& option = schema[data[0] % schema.size()];
  const std::string_view text = fuzz::text_of(data + 1, size - 1);
  const std::string name = option.flag_name() + " '" + std::string(text) + "'";
  Value value;
  try {
    value = parse_value(option, text);
  } catch (const BrokenRule& broken) {
    fuzz::check(!broken.rule.empty(), name + ": refused without a rule");
    // The one line the user sees ends in the rule, whatever bytes the value holds (a NUL once cut it
    // before the rule: d0 00 38), and shows at most kShownBytes of the value.
    Command command = Command::Simulate;
    for (int c = 0; c <= static_cast<int>(Command::Report); ++c)
      if (option.commands.contains(static_cast<Command>(c))) command = static_cast<Command>(c);
    OptionValues values(command);
    try {
      values.set_text(option, text);
      fuzz::fail(name + ": set_text accepts what parse_value refuses");
    } catch (const InputError& e) {
      const std::string line = e.what();
      fuzz::check(line.ends_with(one_line(broken.rule)), name + ": the error line lacks its rule: " + line);
      fuzz::check(line.size() <= option.flag_name().size() + 4 * kShownBytes + 32 + one_line(broken.rule).size(),
                  name + ": the error line shows too much of the value: " + line);
      fuzz::check(line.find('\n') == std::string::npos, name + ": the error line is split");
    }
    fuzz::rejected(name + ": " + broken.rule);
    return 0;
  }
  switch (option.type) {
    case ValueType::Integer: {
      fuzz::check(std::holds_alternative<std::int64_t>(value), name + ": not an integer");
      const std::int64_t v = std::get<std::int64_t>(value);
      fuzz::check(v >= INT_MIN && v <= INT_MAX, name + ": outside an int");
      fuzz::check(within(option.bounds, static_cast<double>(v)), name + ": outside " + range_text(option.bounds));
      break;
    }
    case ValueType::Number: {
      fuzz::check(std::holds_alternative<double>(value), name + ": not a number");
      const double v = std::get<double>(value);
      fuzz::check(std::isfinite(v), name + ": not finite");
      fuzz::check(within(option.bounds, v), name + ": outside " + range_text(option.bounds));
      break;
    }
    case ValueType::Flag:
      fuzz::check(std::holds_alternative<bool>(value), name + ": not a flag");
      break;
    case ValueType::HostPair: {
      fuzz::check(std::holds_alternative<std::vector<std::string>>(value), name + ": not two names");
      const auto& names = std::get<std::vector<std::string>>(value);
      fuzz::check(names.size() == 2 && !names[0].empty() && !names[1].empty(), name + ": not two names");
      break;
    }
    case ValueType::Texts:
      // A repeatable flag's one occurrence: a list of one text (platform perturb --fail A@1 --fail B@2).
      fuzz::check(std::holds_alternative<std::vector<std::string>>(value), name + ": not a list of texts");
      break;
    case ValueType::Choice: {
      fuzz::check(std::holds_alternative<std::string>(value), name + ": not a text");
      bool listed = false;
      for (const std::string& choice : option.choices) listed = listed || choice == std::get<std::string>(value);
      fuzz::check(listed, name + ": not one of the choices");
      break;
    }
    default:
      fuzz::check(std::holds_alternative<std::string>(value), name + ": not a text");
  }
  const std::string written = value_text(value);
  fuzz::accepted(name + " = " + written);
  try {
    fuzz::check(parse_value(option, written) == value,
                name + ": value_text " + written + " reads back as another value");
  } catch (const BrokenRule& broken) {
    fuzz::fail(name + ": value_text " + written + " is refused: " + broken.rule);
  }
  const toml::array node = as_toml(value);
  try {
    fuzz::check(toml_value(option, *node.get(0)) == value, name + ": given in TOML, reads as another value");
  } catch (const BrokenRule& broken) {
    fuzz::fail(name + ": given in TOML, it is refused: " + broken.rule);
  }
  return 0;
}
