#include "sim/report/html_lesson.h"

#include <fmt/format.h>

#include "sim/report/html_text.h"
#include "sim/report/json_fields.h"

namespace pipegrid::report {

std::string lesson_title(const nlohmann::json& lesson) {
  if (const auto title = text_field(lesson, "title")) return *title;
  return text_field(lesson, "name").value_or("");
}

std::string lesson_html(const nlohmann::json& lesson) {
  std::string out = "<div class=\"lesson\">\n";
  for (const auto& [key, heading, style] : {std::tuple{"what_you_see", "What you see", "see"},
                                            {"why", "Why", "why"}, {"fix", "The fix", "fixit"}}) {
    if (const auto text = text_field(lesson, key))
      out += fmt::format("<div class=\"part {}\"><h3>{}</h3>\n{}</div>\n", style, heading, paragraphs(*text));
  }
  if (const auto source = text_field(lesson, "source"))
    out += "<p class=\"source\"><b>Source:</b> " + inline_text(*source) + "</p>\n";
  if (const auto name = text_field(lesson, "name"))
    out += "<p class=\"note\">Lesson <code>" + escape(*name) + "</code>: <code>pipegrid pitfalls " + escape(*name) +
           " --out DIR --report</code> runs it again.</p>\n";
  return out + "</div>\n";
}

}  // namespace pipegrid::report
