#include "sim/input/option_values.h"

#include <fmt/format.h>
#include <stdexcept>

#include "common/input_error.h"
#include "common/message_text.h"
#include "sim/input/option_schema.h"

namespace pipegrid::input {

OptionValues::OptionValues(Command command) : command_(command) {}

void OptionValues::set_text(const OptionSpec& option, std::string_view text) {
  try {
    set(option, parse_value(option, text));
  } catch (const BrokenRule& broken) {
    if (option.positional) throw InputError(fmt::format("{}: {}", shown(text), broken.rule));
    throw InputError(fmt::format("{} {}: {}", option.flag_name(), shown(text), broken.rule));
  }
}

void OptionValues::set(const OptionSpec& option, Value value) {
  if (!option.commands.contains(command_))
    throw std::logic_error(fmt::format("{} is not an option of {}", option.flag_name(), command_name(command_)));
  given_.insert_or_assign(&option, std::move(value));
}

void OptionValues::merge(const OptionValues& overrides) {
  for (const auto& [option, value] : overrides.given_) set(*option, value);
}

const OptionSpec& OptionValues::spec(std::string_view flag) const {
  const OptionSpec* option = find_option(command_, flag);
  if (!option) throw std::logic_error(fmt::format("{} has no option --{}", command_name(command_), flag));
  return *option;
}

const Value* OptionValues::value_or_default(std::string_view flag) const {
  const OptionSpec& option = spec(flag);
  if (const auto it = given_.find(&option); it != given_.end()) return &it->second;
  if (option.default_text.empty()) return nullptr;
  auto it = defaults_.find(&option);
  if (it == defaults_.end()) it = defaults_.emplace(&option, parse_value(option, option.default_text)).first;
  return &it->second;
}

bool OptionValues::has(std::string_view flag) const { return given_.contains(&spec(flag)); }

namespace {

template <typename T>
const T& as(const Value* value, std::string_view flag) {
  if (!value) throw std::logic_error(fmt::format("--{} has neither a value nor a default", flag));
  return std::get<T>(*value);
}

}  // namespace

std::int64_t OptionValues::integer(std::string_view flag) const {
  return as<std::int64_t>(value_or_default(flag), flag);
}

double OptionValues::number(std::string_view flag) const { return as<double>(value_or_default(flag), flag); }

const std::string& OptionValues::text(std::string_view flag) const {
  static const std::string kNone;
  const Value* value = value_or_default(flag);
  return value ? std::get<std::string>(*value) : kNone;
}

bool OptionValues::flag(std::string_view flag) const { return as<bool>(value_or_default(flag), flag); }

std::vector<std::string> OptionValues::names(std::string_view flag) const {
  const Value* value = value_or_default(flag);
  return value ? std::get<std::vector<std::string>>(*value) : std::vector<std::string>{};
}

std::optional<int> OptionValues::given_int(std::string_view flag) const {
  if (!has(flag)) return std::nullopt;
  return static_cast<int>(integer(flag));  // the schema keeps every integer within an int
}

std::optional<double> OptionValues::given_number(std::string_view flag) const {
  if (!has(flag)) return std::nullopt;
  return number(flag);
}

void OptionValues::check_required() const {
  for (const OptionSpec* option : options_of(command_)) {
    if (!option->required.contains(command_)) continue;
    const OptionSpec* instead = option->instead.empty() ? nullptr : &spec(option->instead);
    const bool given = given_.contains(option), instead_given = instead && given_.contains(instead);
    if (given && instead_given)
      throw InputError(fmt::format("{} and {}: give one of them, not both", option->flag_name(), instead->flag_name()));
    if (!given && !instead_given)
      throw InputError(fmt::format("{}{}: required by pipegrid {}; it is the {}",
                                   option->positional ? std::string(option->flag) : option->flag_name(),
                                   instead ? " or " + instead->flag_name() : std::string(), command_name(command_),
                                   option->help));
  }
}

std::vector<std::pair<const OptionSpec*, const Value*>> OptionValues::given() const {
  std::vector<std::pair<const OptionSpec*, const Value*>> out;
  for (const auto& [option, value] : given_) out.emplace_back(option, &value);
  return out;
}

std::string OptionValues::canonical_text() const {
  std::string text = std::string(command_name(command_)) + "\n";
  for (const OptionSpec* option : options_of(command_)) {
    if (!option->identity) continue;
    if (option->identity_when_given.contains(command_) && !given_.contains(option)) continue;
    const Value* value = value_or_default(option->flag);
    if (!value) continue;
    const std::string name = option->in_experiment_files() ? option->key_name() : option->flag_name();
    text += fmt::format("{}={}\n", name, value_text(*value));
  }
  return text;
}

}  // namespace pipegrid::input
