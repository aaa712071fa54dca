// A screen in front of Debian 12's toml++ (3.3.0), which reads some valid and invalid TOML with
// undefined behaviour (found by tests/fuzz/experiment_toml): the text is checked first, and what it
// cannot read is refused as bad input, naming the line and column.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::input {

/// How deep a TOML document may nest: the root table is level 0, each dotted key part, [table] header
/// part, array and inline table one more. toml++ 3.3 builds and frees the tree recursively, and a key
/// of tens of thousands of parts overflowed the stack; pipegrid's deepest file needs 3 (a sweep's
/// inline `base = { parallel = { pp = 4 } }`).
inline constexpr int kMaxTomlDepth = 64;

/// "LINE:COLUMN: rule" for a key or value nested deeper than kMaxTomlDepth, for the first non-ASCII
/// character outside strings and comments, or for a date or time (malformed ones are read past the end
/// of their line, and no option takes one); "" when the text is safe. toml++ 3.3 asks of most non-ASCII
/// characters whether they are whitespace and reaches __builtin_unreachable (upstream issues 190 and
/// 295); the scan follows TOML's grammar far enough to know where a string can open.
std::string unreadable_by_toml(std::string_view text);

}  // namespace pipegrid::input
