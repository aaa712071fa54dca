#include "common/input_file.h"

#include <filesystem>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid {

void refuse_directory(const std::string& path, std::string_view what) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(fmt::format("{}: is a directory, expected a file", what.empty() ? std::string_view(path) : what));
}

std::string_view without_byte_order_mark(std::string_view text) {
  if (text.starts_with(kUtf8ByteOrderMark)) text.remove_prefix(kUtf8ByteOrderMark.size());
  return text;
}

void skip_byte_order_mark(std::istream& in) {
  // Byte by byte, putting back a partial match: the stream may be a pipe, which cannot seek.
  std::size_t matched = 0;
  while (matched < kUtf8ByteOrderMark.size() &&
         in.peek() == static_cast<unsigned char>(kUtf8ByteOrderMark[matched])) {
    in.get();
    ++matched;
  }
  if (matched == kUtf8ByteOrderMark.size()) return;
  in.clear();
  while (matched > 0) in.putback(kUtf8ByteOrderMark[--matched]);
}

}  // namespace pipegrid
