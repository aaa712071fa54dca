#include "sim/input/experiment_file.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/input_error.h"
#include "sim/input/option_schema.h"

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
                               name ? name->get() : toml_type_name(*command)));
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

// Debian 12's toml++ (3.3.0) asks whether a non-ASCII character is whitespace wherever TOML allows
// whitespace and as it scans a number, date or boolean to its end, and for most of U+00A1-U+0499,
// U+2C8E-U+3087 and U+FB26-U+FEFE the answer reaches __builtin_unreachable (upstream issues 190 and
// 295): undefined behaviour. It asks everywhere but in comments and strings, and in a multi-line basic
// string after a backslash (of the escaped character, or of the first one past a line-ending
// backslash's whitespace). This scan follows TOML's grammar far enough to know where a key or a value
// begins, so that a quote opens a string only there: inside a value scanned to its end (`3"é"`,
// `197{"é"`) toml++ classifies every character. Returns "LINE:COLUMN: rule" for the first non-ASCII
// character outside the strings and comments so found, or "".
std::string unreadable_by_toml(std::string_view text) {
  int line = 1, column = 1;
  std::size_t i = 0;
  const auto advance = [&] {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // the first byte of a character
    }
    ++i;
  };
  const auto more = [&] { return i < text.size(); };
  const auto at = [&](std::string_view token) { return text.substr(i).starts_with(token); };
  const auto non_ascii = [&] { return more() && static_cast<unsigned char>(text[i]) >= 0x80; };
  const auto blank = [&] { return text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'; };
  const auto where = [&](std::string_view rule) { return fmt::format("{}:{}: {}", line, column, rule); };
  const auto bare_key_character = [&] {
    const char c = text[i];
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  // Reads a string from its opening quote, as toml++ does for a key too (multi-line ones included, which it
  // refuses as keys only once read); returns the rule a multi-line one breaks, or "".
  const auto string = [&]() -> std::string {
    const char quote = text[i];
    const std::string_view triple = quote == '"' ? "\"\"\"" : "'''";
    if (at(triple)) {
      for (int k = 0; k < 3; ++k) advance();
      while (more() && !at(triple)) {
        if (quote == '\'' || text[i] != '\\') {
          advance();
          continue;
        }
        advance();
        const bool line_ending = more() && blank();
        while (more() && blank()) advance();
        if (non_ascii())
          return where("a non-ASCII character after a backslash in a multi-line string: write it as \\uXXXX");
        if (!line_ending && more()) advance();  // the escaped character
      }
      for (int k = 0; k < 3 && more(); ++k) advance();
      for (int extra = 0; extra < 2 && more() && text[i] == quote; ++extra) advance();  // `""""` ends in a quote
      return "";
    }
    advance();
    while (more() && text[i] != quote && text[i] != '\n') {
      if (quote == '"' && text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') advance();
      advance();
    }
    if (more() && text[i] == quote) advance();
    return "";
  };

  enum class Expect { Key, AfterKey, Value, AfterValue };
  Expect expect = Expect::Key;
  bool header = false;            // in a [table] header
  std::vector<char> open;         // the arrays ('[') and inline tables ('{') the scan is in, innermost last
  if (at("\xEF\xBB\xBF")) i = 3;  // a byte order mark, which toml++ skips
  while (more()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      advance();
    } else if (c == '#') {
      while (more() && text[i] != '\n') advance();
    } else if (c == '\n') {
      advance();
      if (open.empty()) {
        expect = Expect::Key;
        header = false;
      }
    } else if (non_ascii()) {
      return where("a non-ASCII character outside a string or a comment (TOML allows them only there)");
    } else if (expect == Expect::Key) {
      if (c == '"' || c == '\'') {
        if (std::string rule = string(); !rule.empty()) return rule;
        expect = Expect::AfterKey;
      } else if (bare_key_character()) {
        while (more() && bare_key_character()) advance();
        expect = Expect::AfterKey;
      } else if (c == '[' && open.empty() && !header) {
        header = true;
        advance();
      } else if (c == '}' && !open.empty() && open.back() == '{') {
        open.pop_back();
        advance();
        expect = Expect::AfterValue;
      } else {
        advance();  // refused by toml++, which reads no further
      }
    } else if (expect == Expect::AfterKey) {
      if (c == '.') expect = Expect::Key;
      if (c == '=' && !header) expect = Expect::Value;
      if (c == ']' && header) expect = Expect::AfterValue;
      advance();
    } else if (expect == Expect::Value) {
      if (c == '"' || c == '\'') {
        if (std::string rule = string(); !rule.empty()) return rule;
        expect = Expect::AfterValue;
      } else if (c == '[' || c == '{') {
        open.push_back(c);
        advance();
        if (c == '{') expect = Expect::Key;
      } else if (c == ']' && !open.empty() && open.back() == '[') {
        open.pop_back();
        advance();
        expect = Expect::AfterValue;
      } else {
        // A number, date or boolean, which toml++ scans to the next blank, ']', '}', ',' or '#'.
        while (more() && !blank() && std::string_view("]},#").find(text[i]) == std::string_view::npos) {
          if (non_ascii())
            return where("a non-ASCII character outside a string or a comment (TOML allows them only there)");
          advance();
        }
        expect = Expect::AfterValue;
      }
    } else {  // AfterValue
      if (c == ',' && !open.empty()) expect = open.back() == '[' ? Expect::Value : Expect::Key;
      if ((c == ']' || c == '}') && !open.empty()) open.pop_back();
      advance();
    }
  }
  return "";
}

}  // namespace

Experiment read_experiment(const toml::table& table, const std::string& source) {
  Experiment experiment{OptionValues(experiment_command(table, source))};
  const Command command = experiment.command();
  for (const auto& [section_name, section_node] : table) {
    const std::string section(section_name.str());
    const toml::table* keys = section_node.as_table();
    if (!keys)
      throw InputError(fmt::format("{}: {}: expected a section such as [parallel], got {}", where(source, section_node),
                                   section, toml_type_name(section_node)));
    for (const auto& [key_name, value] : *keys) {
      const std::string key(key_name.str());
      if (section == "sim" && key == "command") continue;
      const OptionSpec* option = find_experiment_key(command, section, key);
      if (!option) {
        if (!is_experiment_key(section + "." + key))
          throw InputError(fmt::format("{}: [{}] {}: unknown key", where(source, value), section, key));
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
