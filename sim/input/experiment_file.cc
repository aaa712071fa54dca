#include "sim/input/experiment_file.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/message_text.h"
#include "sim/input/option_schema.h"
#include "sim/input/toml_screen.h"

namespace pipegrid::input {

namespace {

// FILE:LINE:COLUMN of a node, in the file it was read from: a sweep's configuration mixes the base
// experiment's nodes with the sweep file's axis values.
std::string where(const std::string& source, const toml::node& node) {
  const toml::source_region& region = node.source();
  return fmt::format("{}:{}:{}", region.path ? *region.path : source, region.begin.line, region.begin.column);
}

Command experiment_command(const toml::table& table, const std::string& source) {
  const toml::table* sim = table["sim"].as_table();
  const toml::node* command = sim ? sim->get("command") : nullptr;
  if (!command) return Command::Simulate;
  const auto* name = command->as_string();
  for (Command c : kExperimentCommands)
    if (name && name->get() == command_name(c)) return c;
  throw InputError(fmt::format("{}: [sim] command: expected simulate or schedule, got {}", where(source, *command),
                               name ? shown(name->get()) : toml_type_name(*command)));
}

void insert(toml::table& section, const std::string& key, const Value& value) {
  struct Insert {
    toml::table& table;
    const std::string& key;
    void operator()(std::int64_t v) const { table.insert_or_assign(key, v); }
    void operator()(double v) const { table.insert_or_assign(key, v); }
    void operator()(const std::string& v) const { table.insert_or_assign(key, v); }
    void operator()(bool v) const { table.insert_or_assign(key, v); }
    void operator()(const std::vector<std::string>& v) const {
      toml::array array;
      for (const std::string& name : v) array.push_back(name);
      table.insert_or_assign(key, std::move(array));
    }
  };
  std::visit(Insert{section, key}, value);
}

}  // namespace

Experiment read_experiment(const toml::table& table, const std::string& source) {
  return read_experiment_as(table, source, experiment_command(table, source));
}

Experiment read_experiment_as(const toml::table& table, const std::string& source, Command command) {
  Experiment experiment{OptionValues(command)};
  for (const auto& [section_name, section_node] : table) {
    const std::string section(section_name.str());
    const std::string section_shown = shown(section);
    const toml::table* keys = section_node.as_table();
    if (!keys)
      throw InputError(fmt::format("{}: {}: expected a section such as [parallel], got {}", where(source, section_node),
                                   section_shown, toml_type_name(section_node)));
    const bool plan = command == Command::Plan && section == "plan";
    if (section != "platform" && section != "parallel" && section != "model" && section != "sim" &&
        section != "output" && !plan)
      throw InputError(fmt::format("{}: [{}]: unknown section; an experiment has [platform], [parallel], [model], "
                                   "[sim] and [output]{}",
                                   where(source, section_node), section_shown, command == Command::Plan ? ", a plan [plan] too" : ""));
    for (const auto& [key_name, value] : *keys) {
      const std::string key(key_name.str());
      if (section == "sim" && key == "command") continue;
      const OptionSpec* option = find_experiment_key(command, section, key);
      if (!option) {
        if (!is_experiment_key(section + "." + key) || command == Command::Plan)
          throw InputError(fmt::format("{}: [{}] {}: unknown key", where(source, value), section, shown(key)));
        const OptionSpec* other =
            find_experiment_key(command == Command::Simulate ? Command::Schedule : Command::Simulate, section, key);
        throw InputError(fmt::format("{}: [{}] {}: `pipegrid {}` has no {}", where(source, value), section, key,
                                     command_name(command), other->flag_name()));
      }
      try {
        experiment.values.set(*option, toml_value(*option, value));
      } catch (const BrokenRule& broken) {
        throw InputError(fmt::format("{}: [{}] {}: {}", where(source, value), section, key, broken.rule));
      }
    }
  }
  return experiment;
}

toml::table experiment_table(const Experiment& experiment) {
  toml::table table;
  if (experiment.command() != Command::Simulate)
    table.insert_or_assign("sim", toml::table{{"command", std::string(command_name(experiment.command()))}});
  for (const auto& [option, value] : experiment.values.given()) {
    if (!option->in_experiment_files()) continue;
    const std::string section(option->section);
    if (!table.contains(section)) table.insert(section, toml::table{});
    insert(*table[section].as_table(), option->toml_key(), *value);
  }
  return table;
}

std::string experiment_text(const Experiment& experiment) {
  // toml++ 3.3.0 would write a string holding a line break as a multi-line literal one (''' … ''') even
  // when it holds ''' itself, which then ends it early, and as a multi-line basic one it would lose a
  // leading line break (TOML trims it): one-line basic strings, escaped, read back as written.
  constexpr auto kFlags = toml::toml_formatter::default_flags & ~toml::format_flags::allow_literal_strings &
                          ~toml::format_flags::allow_multi_line_strings;
  std::ostringstream text;
  text << toml::toml_formatter(experiment_table(experiment), kFlags);
  return text.str();
}

toml::table read_toml(const std::string& path) {
  refuse_directory(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_toml(text.str(), path);
}

toml::table parse_toml(std::string_view text, const std::string& source) {
  if (const std::string rule = unreadable_by_toml(text); !rule.empty())
    throw InputError(fmt::format("{}:{}", source, rule));
  try {
    return toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw InputError(fmt::format("{}:{}:{}: {}", source, begin.line, begin.column, e.description()));
  }
}

std::string stable_hash(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

}  // namespace pipegrid::input
