// What an option of a pipegrid command is — its name, type, unit, allowed range, default and help —
// declared once in the schema (option_schema.h) and read by the command line, experiment files and
// sweep axes alike.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::input {

/// The commands whose options the schema declares.
enum class Command : std::uint8_t {
  Simulate, Schedule, Check, PlatformGen, PlatformInfo, PlatformPerturb, Run, Sweep, Pitfalls, Report, Plan
};
std::string_view command_name(Command command);

/// A set of commands, as a bit mask.
class Commands {
 public:
  constexpr Commands() = default;
  constexpr Commands(std::initializer_list<Command> commands) {
    for (Command c : commands) bits_ |= bit(c);
  }
  constexpr bool contains(Command c) const { return (bits_ & bit(c)) != 0; }
  constexpr Commands with(Command c) const {
    Commands more = *this;
    more.bits_ |= bit(c);
    return more;
  }

 private:
  static constexpr std::uint16_t bit(Command c) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(c)); }
  std::uint16_t bits_ = 0;
};

enum class ValueType : std::uint8_t {
  Integer,   // a whole number (stored as int64, always within an int)
  Number,    // a finite double
  Text,      // free text, with an optional syntax check
  Choice,    // one of `choices`
  Flag,      // on or off (a command-line flag without a value; true/false in TOML)
  Path,      // a file the run reads: its content is part of a sweep configuration's identity
  HostPair,  // two names (platform info --route A B)
  Texts,     // texts, the flag repeated (platform perturb --fail A@1 --fail B@2)
};

/// The allowed range of a number. An unbounded side is ±infinity; every number must also be finite.
/// `interval` states the rule as the interval ("must be in (0, 1]") rather than side by side ("must
/// be at least 1", "must be at most 1000000").
struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
  bool interval = false;
};

/// One option of one or more commands.
struct OptionSpec {
  std::string_view flag;     // without the dashes: "time-f" is --time-f
  std::string_view section;  // the experiment file's [section]; "" when experiment files do not set it
  std::string_view key;      // the key in that section ("time_f"); the flag with '_' for '-' when empty
  Commands commands;
  ValueType type = ValueType::Text;
  std::string_view unit;             // "s", "bytes", "GPUs", …; "" for plain counts and names
  Bounds bounds;                     // Integer and Number
  std::vector<std::string> choices;  // Choice
  std::string_view default_text;     // as a user would write it; "" when the option has no default
  std::string_view help;
  /// Text: the syntax rule, checked when the value is read. Returns "" when the text is fine, otherwise
  /// the rule it breaks (without the flag, which the caller names).
  std::string (*syntax)(std::string_view text) = nullptr;
  Commands required;        // the commands that cannot run without it
  /// With `required`: the option (flag) that may be given instead of this one; exactly one of the two.
  std::string_view instead;
  bool positional = false;  // given without its flag (pipegrid check FILE.csv)
  bool identity = true;     // false: changes only how results are shown or where they go (format, out)
  /// The commands for which it is part of the identity only when given: a model's options on
  /// `schedule` and `check`, so that a run with explicit times keeps the identity it had before they
  /// took a model; and an option added later whose default is what runs did before it (--cp,
  /// --sequence-parallel, …), so that a sweep written before keeps its configurations' ids.
  Commands identity_when_given;
  /// A Text that names a file or directory (Path options always do): in an experiment or sweep file, a
  /// relative one is taken from that file's folder (relative_paths.h).
  bool names_path = false;
  std::string_view path_prefix;  // the path is the text after this prefix ("file:" of --routing), if it has it

  std::string flag_name() const { return "--" + std::string(flag); }
  std::string toml_key() const;  // the key within its section: `key`, or the flag with '_' for '-'
  std::string key_name() const;  // section.key, "" when not an experiment key
  bool in_experiment_files() const { return !section.empty(); }
};

}  // namespace pipegrid::input
