// Experiment files: TOML whose keys are the options of `pipegrid simulate` and `pipegrid schedule`,
// grouped in [platform], [parallel], [model], [sim] and [output] — the same names with '_' for '-'.
#pragma once

#include <string>
#include <toml++/toml.h>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipegrid::sweep {

/// Where an option's key lives: its section and key (tp → parallel.tp, --platform → platform.file).
struct ExperimentKey {
  std::string section;
  std::string key;
  std::string flag;  // "--tp"
  std::string path() const { return section + "." + key; }
};

/// Every key an experiment may set, one per option of `simulate` and of `schedule`, in a fixed order.
const std::vector<ExperimentKey>& experiment_keys();
/// nullptr for an unknown "section.key".
const ExperimentKey* find_key(const std::string& path);

/// An experiment resolved to a command line: `command` (simulate or schedule, from [sim] command,
/// default simulate) and its flags.
struct ExperimentCommand {
  std::string command = "simulate";
  std::vector<std::string> args;
};

/// Checks every key and value of `table` against the options of `app`'s subcommand and turns them into
/// flags. Throws InputError `SOURCE:LINE:COLUMN: [section] key: …` for an unknown section or key, a key
/// the command does not take, or a value of the wrong type.
ExperimentCommand experiment_command(const toml::table& table, const std::string& source, CLI::App& app);

/// Reads and parses FILE (InputError `FILE:LINE:COLUMN: …` for TOML syntax, `FILE: cannot open …`).
toml::table read_toml(const std::string& path);

/// A table's canonical text (keys sorted, as toml++ writes it): what identifies a configuration.
std::string canonical_text(const toml::table& table);
/// FNV-1a 64 of a text, as 16 hex digits: stable across runs and machines.
std::string stable_hash(const std::string& text);

}  // namespace pipegrid::sweep
