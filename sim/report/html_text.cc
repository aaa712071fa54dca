#include "sim/report/html_text.h"

#include <cmath>
#include <fmt/format.h>

#include "common/number_format.h"

namespace pipegrid::report {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string inline_text(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('`', at);
    const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
    if (close == std::string_view::npos) {
      out += escape(text.substr(at));
      break;
    }
    out += escape(text.substr(at, open - at)) + "<code>" + escape(text.substr(open + 1, close - open - 1)) + "</code>";
    at = close + 1;
  }
  return out;
}

std::string paragraphs(std::string_view text) {
  std::string out, paragraph, code;
  bool in_code = false;  // inside a ``` fence: lines kept as they are, in a <pre>
  const auto flush = [&] {
    if (!paragraph.empty()) out += "<p>" + inline_text(paragraph) + "</p>\n";
    paragraph.clear();
  };
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    at = end + 1;
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) trimmed.remove_prefix(1);
    if (trimmed.starts_with("```")) {
      if (in_code) out += "<pre>" + escape(code) + "</pre>\n";
      else flush();
      code.clear();
      in_code = !in_code;
      continue;
    }
    if (in_code) {
      code += std::string(line) + "\n";
      continue;
    }
    if (trimmed.empty()) flush();
    else {
      if (!paragraph.empty()) paragraph += ' ';
      paragraph += trimmed;
    }
  }
  if (in_code) out += "<pre>" + escape(code) + "</pre>\n";  // a fence left open: its lines all the same
  flush();
  return out;
}

std::string seconds_text(double seconds) { return format_number(seconds) + " s"; }

std::string short_number(double value) {
  if (value == 0) return "0";
  return fmt::format("{:.4g}", value);
}

std::string percent_text(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

std::string bytes_text(double bytes) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int prefix = 0;
  while (std::abs(bytes) >= 1000 && prefix < 6) {
    bytes /= 1000;
    ++prefix;
  }
  return fmt::format("{:.3g} {}B", bytes, kPrefixes[prefix]);
}

}  // namespace pipegrid::report
