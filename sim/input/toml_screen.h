// A screen in front of Debian 12's toml++ (3.3.0), which reads some valid and invalid TOML with
// undefined behaviour (found by tests/fuzz/experiment_toml): the text is checked first, and what it
// cannot read is refused as bad input, naming the line and column.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::input {

/// Debian 12's toml++ (3.3.0) asks whether a non-ASCII character is whitespace wherever TOML allows
/// whitespace and as it scans a number, date or boolean to its end, and for most of U+00A1-U+0499,
/// U+2C8E-U+3087 and U+FB26-U+FEFE the answer reaches __builtin_unreachable (upstream issues 190 and
/// 295): undefined behaviour. It asks everywhere but in comments and strings, and in a multi-line basic
/// string after a backslash (of the escaped character, or of the first one past a line-ending
/// backslash's whitespace). This scan follows TOML's grammar far enough to know where a key or a value
/// begins, so that a quote opens a string only there: inside a value scanned to its end (`3"é"`,
/// `197{"é"`) toml++ classifies every character. Returns "LINE:COLUMN: rule" for the first non-ASCII
/// character outside the strings and comments so found, or for a date or time, which toml++ reads past
/// the end of its line when malformed and which no pipegrid option takes; "" when the text is safe.
std::string unreadable_by_toml(std::string_view text);

}  // namespace pipegrid::input
