#include "common/message_text.h"

#include <fmt/format.h>

namespace pipegrid {

namespace {

// The length of the UTF-8 character starting at text[i], or 0 when the bytes there are not one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

// Appends text[i…] escaped, up to `limit` bytes of the source; returns where it stopped.
std::size_t append_escaped(std::string& out, std::string_view text, std::size_t limit) {
  std::size_t i = 0;
  while (i < text.size() && i < limit) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_length(text, i);
      if (length > 0 && i + length > limit) break;  // never half a character
      if (length > 0) {
        out.append(text.substr(i, length));
        i += length;
        continue;
      }
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0) {
      out += "\\0";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return i;
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text, text.size());
  return out;
}

std::string shown(std::string_view value) {
  std::string out;
  if (append_escaped(out, value, kShownBytes) < value.size()) out += fmt::format("…({} bytes)", value.size());
  return out;
}

}  // namespace pipegrid
