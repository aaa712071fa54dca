// The report's page: one self-contained HTML file (inline CSS, inline SVG, no script, no external
// URL) that opens offline, e.g. from a USB stick in a lecture room.
#pragma once

#include <string>
#include <string_view>

namespace pipegrid::report {

/// The whole document. `title` and `subtitle` are plain text (escaped here); `body` and `footer` HTML.
std::string page_html(const std::string& title, const std::string& subtitle, const std::string& body,
                      const std::string& footer);

/// <section> with a heading (plain text, escaped) at `level` (2 or 3) and an optional CSS class.
std::string section_html(int level, const std::string& heading, const std::string& body, std::string_view css_class = "");

/// The style sheet, inlined into every page.
std::string_view page_style();

}  // namespace pipegrid::report
