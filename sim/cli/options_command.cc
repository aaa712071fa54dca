#include "sim/cli/options_command.h"

#include <cmath>
#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "sim/cli/subcommand.h"
#include "sim/input/option_schema.h"
#include "sim/input/option_value.h"

namespace pipegrid::cli {

namespace {

using input::Command;
using input::OptionSpec;
using input::ValueType;

std::string type_text(const OptionSpec& o) {
  switch (o.type) {
    case ValueType::Integer:
      return "integer";
    case ValueType::Number:
      return "number";
    case ValueType::Text:
      return "text";
    case ValueType::Choice:
      return fmt::format("{}", fmt::join(o.choices, " \\| "));
    case ValueType::Flag:
      return "flag";
    case ValueType::Path:
      return "file";
    case ValueType::HostPair:
      return "two host names";
    case ValueType::Texts:
      return "text, repeatable";
  }
  return "?";
}

std::string range_of(const OptionSpec& o) {
  const bool numeric = o.type == ValueType::Integer || o.type == ValueType::Number;
  if (!numeric || (std::isinf(o.bounds.min) && std::isinf(o.bounds.max))) return "";
  return input::range_text(o.bounds);
}

}  // namespace

void write_options_markdown(std::ostream& out) {
  out << "# pipegrid's options\n\n"
         "Every option of every command, as `pipegrid options` prints it from the one table that the command\n"
         "line, experiment files and sweep axes all read (sim/input/option_schema.cc). Numbers are finite;\n"
         "a range is inclusive where its bracket is square. A key is where an experiment file sets the option.\n";
  for (Command command : {Command::Simulate, Command::Schedule, Command::Check, Command::PlatformGen,
                          Command::PlatformInfo, Command::PlatformPerturb, Command::Run, Command::Sweep, Command::Pitfalls, Command::Report}) {
    out << fmt::format("\n## pipegrid {}\n\n", input::command_name(command));
    out << "| option | key | type | unit | range | default | what |\n|---|---|---|---|---|---|---|\n";
    for (const OptionSpec* o : input::options_of(command)) {
      std::string what(o->help);
      if (o->required.contains(command))
        what += o->instead.empty() ? " (required)" : fmt::format(" (required, or --{} instead)", o->instead);
      out << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n",
                         o->positional ? std::string(o->flag) : "`" + o->flag_name() + "`",
                         o->in_experiment_files() ? "`" + o->key_name() + "`" : "", type_text(*o), o->unit,
                         range_of(*o), o->default_text, what);
    }
  }
}

void add_options_command(CLI::App& app, std::function<int()>& run) {
  run_when_chosen(*app.add_subcommand("options", "Print every option of every command (docs/options.md)"), run, [] {
    write_options_markdown(std::cout);
    return kExitOk;
  });
}

}  // namespace pipegrid::cli
