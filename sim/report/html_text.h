// Text as the HTML report writes it: every string that comes from a file escaped, numbers formatted
// the same way everywhere on the page, and the lessons' markdown-light prose turned into paragraphs.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::report {

/// `text` safe inside an element or a quoted attribute: & < > " ' replaced by their entities.
std::string escape(std::string_view text);

/// One line or paragraph's text, escaped, with `code` spans as <code>; an unpaired backtick stays.
std::string inline_text(std::string_view text);

/// Paragraphs separated by blank lines, each as <p>…</p> (single newlines join the lines), escaped;
/// `code` spans become <code>; a ``` fence becomes a <pre> of its lines as written (a command and
/// its output, in a lesson's "What you see").
std::string paragraphs(std::string_view text);

/// A time in seconds as pipegrid's text output prints it (format_number: "33.04", "9"), plus " s".
std::string seconds_text(double seconds);
/// A number for a table cell: up to 4 significant digits ("9.026", "0.014", "1.2e+06").
std::string short_number(double value);
/// A fraction as a percentage with one decimal: 0.27361 → "27.4 %".
std::string percent_text(double fraction);
/// Bytes with an SI prefix: 0 → "0 B", 1.5e9 → "1.5 GB".
std::string bytes_text(double bytes);

}  // namespace pipegrid::report
