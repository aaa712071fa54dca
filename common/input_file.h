// What every reader of an input file does first: refuse a directory with a message that says so (a
// stream opened on one reads nothing, and the reader then says something unrelated), and skip the
// UTF-8 byte order mark that some editors put before the first line.
#pragma once

#include <istream>
#include <string>
#include <string_view>

namespace pipegrid {

inline constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

/// InputError "PATH: is a directory, expected a file" when `path` names a directory; `what` is how
/// the message names the input when it is not the path itself (e.g. "--platform /tmp").
void refuse_directory(const std::string& path, std::string_view what = {});

/// The text without a leading byte order mark.
std::string_view without_byte_order_mark(std::string_view text);
/// Skips a byte order mark at the stream's start (call before reading anything).
void skip_byte_order_mark(std::istream& in);

}  // namespace pipegrid
