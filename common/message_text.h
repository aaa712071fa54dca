// What a message may show of a value the user gave: the one-line errors of exit code 2 name the input
// and the rule, and a value echoed whole could hide the rule (a NUL ends a C string, a line break
// splits the line, a 10 MB cell buries it). Every message goes through one_line (InputError does it);
// a value quoted in a message goes through shown.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pipegrid {

/// How many bytes of a value a message shows before cutting it.
inline constexpr std::size_t kShownBytes = 80;

/// The text with control bytes (NUL, line breaks, tabs, DEL) and bytes that are not UTF-8 written as
/// escapes (`\0`, `\n`, `\r`, `\t`, `\xNN`), so that it prints as one whole line. UTF-8 stays as is.
std::string one_line(std::string_view text);

/// A value as a message quotes it: one_line, and when longer than kShownBytes its first kShownBytes
/// (never half a UTF-8 character) then `…(N bytes)`, N its whole size.
std::string shown(std::string_view value);

}  // namespace pipegrid
