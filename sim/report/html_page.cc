#include "sim/report/html_page.h"

#include <fmt/format.h>

#include "sim/report/html_text.h"

namespace pipegrid::report {

std::string page_html(const std::string& title, const std::string& subtitle, const std::string& body,
                      const std::string& footer) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{0}</title>\n"
                     "<style>\n{2}</style>\n</head>\n<body>\n<header>\n<div class=\"wrap\">\n<p class=\"brand\">pipegrid "
                     "report</p>\n<h1>{0}</h1>\n{1}</div>\n</header>\n<main class=\"wrap\">\n{3}</main>\n<footer "
                     "class=\"wrap\">{4}</footer>\n</body>\n</html>\n",
                     escape(title), subtitle.empty() ? "" : "<p class=\"subtitle\">" + escape(subtitle) + "</p>\n",
                     page_style(), body, footer);
}

std::string section_html(int level, const std::string& heading, const std::string& body, std::string_view css_class) {
  return fmt::format("<section{}>\n<h{}>{}</h{}>\n{}</section>\n",
                     css_class.empty() ? "" : fmt::format(" class=\"{}\"", css_class), level, escape(heading), level,
                     body);
}

}  // namespace pipegrid::report
