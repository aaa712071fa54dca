// The wiring of subcommand.h: CLI11 subcommands, their CommandOptions and the callback that sets `run`.
#include "sim/cli/subcommand.h"

#include <utility>

#include "sim/cli/log_level.h"

namespace pipegrid::cli {

Subcommand add_subcommand(CLI::App& parent, input::Command command, const std::string& name, const std::string& help) {
  CLI::App* sub = parent.add_subcommand(name, help);
  return {sub, std::make_shared<const CommandOptions>(*sub, command)};
}

void run_when_chosen(CLI::App& sub, std::function<int()>& run, std::function<int()> action) {
  sub.callback([&run, action = std::move(action)] { run = action; });
}

CLI::App* add_subcommand(CLI::App& parent, std::function<int()>& run, input::Command command, const std::string& name,
                         const std::string& help, std::function<int(const input::OptionValues&)> action) {
  const Subcommand sub = add_subcommand(parent, command, name, help);
  run_when_chosen(*sub.app, run, [options = sub.options, action = std::move(action)] {
    const input::OptionValues values = options->values();
    use_log_level(values);
    return action(values);
  });
  return sub.app;
}

}  // namespace pipegrid::cli
