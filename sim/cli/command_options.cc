#include "sim/cli/command_options.h"

#include <cmath>
#include <fmt/format.h>

namespace pipegrid::cli {

using input::OptionSpec;
using input::ValueType;

std::string option_help(const OptionSpec& option) {
  std::vector<std::string> facts;
  if (!option.unit.empty()) facts.emplace_back(option.unit);
  const input::Bounds& b = option.bounds;
  if ((option.type == ValueType::Integer || option.type == ValueType::Number) &&
      (std::isfinite(b.min) || std::isfinite(b.max)))
    facts.push_back(input::range_text(b));
  if (option.type == ValueType::Choice) facts.push_back(fmt::format("{}", fmt::join(option.choices, "|")));
  std::string help(option.help);
  if (!facts.empty()) help += fmt::format(" ({})", fmt::join(facts, ", "));
  return help;
}

CommandOptions::CommandOptions(CLI::App& app, input::Command command) : command_(command) {
  for (const OptionSpec* spec : input::options_of(command)) {
    auto bound = std::make_unique<Bound>();
    bound->spec = spec;
    const std::string name = spec->positional ? std::string(spec->flag) : spec->flag_name();
    const std::string help = option_help(*spec);
    switch (spec->type) {
      case ValueType::Flag:
        bound->option = app.add_flag(name, bound->on, help);
        break;
      case ValueType::HostPair:
        bound->option = app.add_option(name, bound->texts, help)->expected(2);
        break;
      case ValueType::Texts:
        bound->option = app.add_option(name, bound->texts, help)
                            ->expected(1)
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        break;
      default:
        bound->option = app.add_option(name, bound->text, help);
        break;
    }
    if (!spec->default_text.empty() && spec->type != ValueType::Flag)
      bound->option->default_str(std::string(spec->default_text));
    bound_.push_back(std::move(bound));
  }
}

input::OptionValues CommandOptions::values() const {
  input::OptionValues values(command_);
  for (const auto& bound : bound_) {
    if (bound->option->count() == 0) continue;
    switch (bound->spec->type) {
      case ValueType::Flag:
        values.set(*bound->spec, bound->on);
        break;
      case ValueType::HostPair:
      case ValueType::Texts:
        values.set(*bound->spec, bound->texts);
        break;
      default:
        values.set_text(*bound->spec, bound->text);
        break;
    }
  }
  return values;
}

}  // namespace pipegrid::cli
