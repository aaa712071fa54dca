// A lesson's explanation as HTML, from lesson.json (spec §4: {"name","title","what_you_see","why",
// "fix","source"}, strings, paragraphs only).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipegrid::report {

/// The lesson's title ("" when it has none).
std::string lesson_title(const nlohmann::json& lesson);

/// What a student sees, why, the fix and the source, each under its heading; fields it lacks are left out.
std::string lesson_html(const nlohmann::json& lesson);

}  // namespace pipegrid::report
