// Experiment files: TOML whose keys are the options of `pipegrid simulate` and `pipegrid schedule`,
// grouped in [platform], [parallel], [model], [sim] and [output] (the schema says which key is where).
#pragma once

#include <string>
#include <toml++/toml.h>

#include "sim/input/option_values.h"

namespace pipegrid::input {

/// What a run is: a command and its options' values.
struct Experiment {
  OptionValues values{Command::Simulate};
  Command command() const { return values.command(); }
};

/// Reads an experiment table: `[sim] command` (simulate or schedule, default simulate) and every other
/// key by the schema. Throws InputError `SOURCE:LINE:COLUMN: [section] key: …` for an unknown section
/// or key, a key the command does not take, or a value that breaks its option's rules.
Experiment read_experiment(const toml::table& table, const std::string& source);
/// The same for `command`'s options whatever [sim] command says: a plan file (plan.toml) holds plan's,
/// its own keys in [plan].
Experiment read_experiment_as(const toml::table& table, const std::string& source, Command command);

/// The experiment as a table that read_experiment reads back to the same values: [sim] command and
/// every option given (defaults are left out).
toml::table experiment_table(const Experiment& experiment);
/// experiment_table as TOML text that read_toml reads back: every string a basic one, on one line.
std::string experiment_text(const Experiment& experiment);

/// Reads and parses FILE (InputError `FILE:LINE:COLUMN: …` for TOML syntax, `FILE: cannot open …`).
toml::table read_toml(const std::string& path);
/// Parses TOML text read from SOURCE (InputError `SOURCE:LINE:COLUMN: …` for TOML syntax). Refuses first
/// what toml++ 3.3.0 cannot read without undefined behaviour: a non-ASCII character outside strings and
/// comments (invalid TOML anyway), or right after a backslash in a multi-line basic string.
toml::table parse_toml(std::string_view text, const std::string& source);

/// FNV-1a 64 of a text, as 16 hex digits: stable across runs and machines.
std::string stable_hash(const std::string& text);

}  // namespace pipegrid::input
