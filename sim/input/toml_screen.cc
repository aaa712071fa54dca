#include "sim/input/toml_screen.h"

#include <fmt/format.h>
#include <utility>
#include <vector>

namespace pipegrid::input {

std::string unreadable_by_toml(std::string_view text) {
  int line = 1, column = 1;
  std::size_t i = 0;
  const auto advance = [&] {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;  // the first byte of a character
    }
    ++i;
  };
  const auto more = [&] { return i < text.size(); };
  const auto at = [&](std::string_view token) { return text.substr(i).starts_with(token); };
  const auto non_ascii = [&] { return more() && static_cast<unsigned char>(text[i]) >= 0x80; };
  const auto blank = [&] { return text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'; };
  const auto where = [&](std::string_view rule) { return fmt::format("{}:{}: {}", line, column, rule); };
  const auto bare_key_character = [&] {
    const char c = text[i];
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  // Reads a string from its opening quote, as toml++ does for a key too (multi-line ones included, which it
  // refuses as keys only once read); returns the rule a multi-line one breaks, or "".
  const auto string = [&]() -> std::string {
    const char quote = text[i];
    const std::string_view triple = quote == '"' ? "\"\"\"" : "'''";
    if (at(triple)) {
      for (int k = 0; k < 3; ++k) advance();
      while (more() && !at(triple)) {
        if (quote == '\'' || text[i] != '\\') {
          advance();
          continue;
        }
        advance();
        const bool line_ending = more() && blank();
        while (more() && blank()) advance();
        if (non_ascii())
          return where("a non-ASCII character after a backslash in a multi-line string: write it as \\uXXXX");
        if (!line_ending && more()) advance();  // the escaped character
      }
      for (int k = 0; k < 3 && more(); ++k) advance();
      for (int extra = 0; extra < 2 && more() && text[i] == quote; ++extra) advance();  // `""""` ends in a quote
      return "";
    }
    advance();
    while (more() && text[i] != quote && text[i] != '\n') {
      if (quote == '"' && text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n') advance();
      advance();
    }
    if (more() && text[i] == quote) advance();
    return "";
  };

  enum class Expect { Key, AfterKey, Value, AfterValue };
  Expect expect = Expect::Key;
  bool header = false;  // in a [table] header
  // The arrays ('[') and inline tables ('{') the scan is in, innermost last, each with its depth in
  // the document's tree: the root table is 0, `a.b = [1]` puts the array at 2 and the 1 at 3.
  std::vector<std::pair<char, int>> open;
  int table_depth = 0;  // of the last [table] header
  int key_parts = 0;    // parts of the key (or header) being read
  int value_depth = 0;  // of the value about to be read
  const auto key_base = [&] { return !open.empty() ? open.back().second : header ? 0 : table_depth; };
  const auto too_deep = [&](int depth) {
    return depth > kMaxTomlDepth ? where(fmt::format("nested deeper than {} levels (each part of a dotted key or "
                                                     "[table] header, each array and inline table is one)",
                                                     kMaxTomlDepth))
                                 : std::string();
  };
  const auto start_key_part = [&] {
    ++key_parts;
    return too_deep(key_base() + key_parts);
  };
  const auto close_container = [&] {
    open.pop_back();
    if (!open.empty() && open.back().first == '[') value_depth = open.back().second + 1;
  };
  if (at("\xEF\xBB\xBF")) i = 3;  // a byte order mark, which toml++ skips
  while (more()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      advance();
    } else if (c == '#') {
      while (more() && text[i] != '\n') advance();
    } else if (c == '\n') {
      advance();
      if (open.empty()) {
        expect = Expect::Key;
        header = false;
        key_parts = 0;
      }
    } else if (non_ascii()) {
      return where("a non-ASCII character outside a string or a comment (TOML allows them only there)");
    } else if (expect == Expect::Key) {
      if (c == '"' || c == '\'') {
        if (std::string rule = start_key_part(); !rule.empty()) return rule;
        if (std::string rule = string(); !rule.empty()) return rule;
        expect = Expect::AfterKey;
      } else if (bare_key_character()) {
        if (std::string rule = start_key_part(); !rule.empty()) return rule;
        while (more() && bare_key_character()) advance();
        expect = Expect::AfterKey;
      } else if (c == '[' && open.empty() && !header) {
        header = true;
        key_parts = 0;
        advance();
      } else if (c == '}' && !open.empty() && open.back().first == '{') {
        close_container();
        advance();
        expect = Expect::AfterValue;
      } else {
        advance();  // refused by toml++, which reads no further
      }
    } else if (expect == Expect::AfterKey) {
      if (c == '.') expect = Expect::Key;
      if (c == '=' && !header) {
        expect = Expect::Value;
        value_depth = key_base() + key_parts;
      }
      if (c == ']' && header) {
        expect = Expect::AfterValue;
        table_depth = key_parts;
      }
      advance();
    } else if (expect == Expect::Value) {
      if (c == '"' || c == '\'') {
        if (std::string rule = string(); !rule.empty()) return rule;
        expect = Expect::AfterValue;
      } else if (c == '[' || c == '{') {
        if (std::string rule = too_deep(value_depth); !rule.empty()) return rule;
        open.emplace_back(c, value_depth);
        advance();
        if (c == '{') {
          expect = Expect::Key;
          key_parts = 0;
        } else {
          value_depth = open.back().second + 1;
        }
      } else if (c == ']' && !open.empty() && open.back().first == '[') {
        close_container();
        advance();
        expect = Expect::AfterValue;
      } else {
        // A date or time: toml++ reads one past the blank that may join a date to its time, and past
        // the line's end when the time is malformed (`d=4562-05-27 0` then `"é` on the next line, found
        // by tests/fuzz/experiment_toml). It takes a value for a date when its first ten characters
        // other than underscores have '-' fifth and eighth, whatever the others are (`456N-05-27 0`,
        // found by the same harness): so does the screen. No pipegrid option takes a date, so none is read.
        const auto digits = [&](std::size_t count) {
          for (std::size_t k = 0; k < count; ++k)
            if (i + k >= text.size() || text[i + k] < '0' || text[i + k] > '9') return false;
          return true;
        };
        std::string head;  // the value's first characters as toml++ collects them
        for (std::size_t k = i; k < text.size() && head.size() < 10; ++k) {
          if (std::string_view(" \t\r\n]},#").find(text[k]) != std::string_view::npos) break;
          if (text[k] != '_') head += text[k];
        }
        if ((digits(1) && head.size() >= 8 && head[4] == '-' && head[7] == '-') ||
            (digits(2) && i + 2 < text.size() && text[i + 2] == ':'))
          return where("a date or time, which no pipegrid option takes");
        // A number or boolean, which toml++ scans to the next blank, ']', '}', ',' or '#'.
        while (more() && !blank() && std::string_view("]},#").find(text[i]) == std::string_view::npos) {
          if (non_ascii())
            return where("a non-ASCII character outside a string or a comment (TOML allows them only there)");
          advance();
        }
        expect = Expect::AfterValue;
      }
    } else {  // AfterValue
      if (c == ',' && !open.empty()) {
        expect = open.back().first == '[' ? Expect::Value : Expect::Key;
        key_parts = 0;
      }
      if ((c == ']' || c == '}') && !open.empty()) close_container();
      advance();
    }
  }
  return "";
}

}  // namespace pipegrid::input
