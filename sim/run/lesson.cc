#include "sim/run/lesson.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_error.h"
#include "sim/input/experiment_file.h"

namespace pipegrid::run {

namespace {

namespace fs = std::filesystem;

std::string text_key(const toml::table& table, const char* key, const std::string& where) {
  const auto value = table[key].value<std::string>();
  if (!value || value->empty()) throw InputError(fmt::format("{}: {}: needs a non-empty string", where, key));
  return *value;
}

LessonSetup read_setup(const toml::table& table, std::string name, const std::string& where) {
  LessonSetup setup;
  setup.name = std::move(name);
  const toml::array* args = table["args"].as_array();
  if (args == nullptr || args->empty())
    throw InputError(fmt::format("{}: args: needs a list of pipegrid's arguments", where));
  for (const toml::node& arg : *args) {
    const auto text = arg.value<std::string>();
    if (!text) throw InputError(fmt::format("{}: args: every argument must be a string", where));
    setup.args.push_back(*text);
  }
  const auto exit = table["exit"].value<std::int64_t>();
  if (!exit || *exit < 0 || *exit > 255)
    throw InputError(fmt::format("{}: exit: needs an exit code (0 to 255)", where));
  setup.expected_exit = static_cast<int>(*exit);
  return setup;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \n") - first + 1);
}

// The text under `## HEADING` up to the next `## ` heading (code blocks included as written).
std::string section(const std::string& readme, const std::string& heading, const std::string& where) {
  const std::string marker = "\n## " + heading + "\n";
  const std::string text = "\n" + readme;
  const auto start = text.find(marker);
  if (start == std::string::npos) throw InputError(fmt::format("{}: no section '## {}'", where, heading));
  const auto body = start + marker.size();
  // A "## " inside a code block would end the section early; the lessons' code blocks hold none.
  const auto end = text.find("\n## ", body);
  return trimmed(text.substr(body, end == std::string::npos ? std::string::npos : end - body));
}

}  // namespace

Lesson read_lesson(const fs::path& dir) {
  const fs::path file = dir / "lesson.toml";
  const std::string where = file.string();
  const toml::table table = input::read_toml(where);
  Lesson lesson;
  lesson.name = dir.filename().string();
  lesson.dir = dir;
  lesson.title = text_key(table, "title", where);
  lesson.summary = text_key(table, "summary", where);
  const toml::table* broken = table["broken"].as_table();
  if (broken == nullptr) throw InputError(fmt::format("{}: needs a [broken] table", where));
  lesson.broken = read_setup(*broken, "broken", where + ": [broken]");
  const toml::array* fixed = table["fixed"].as_array();
  if (fixed == nullptr || fixed->empty())
    throw InputError(fmt::format("{}: needs one or more [[fixed]] tables", where));
  for (std::size_t i = 0; i < fixed->size(); ++i) {
    const toml::table* entry = (*fixed)[i].as_table();
    const std::string at = fmt::format("{}: [[fixed]] {}", where, i + 1);
    if (entry == nullptr) throw InputError(at + ": needs to be a table");
    const std::string name = fixed->size() > 1 ? fmt::format("fixed-{}", text_key(*entry, "name", at)) : "fixed";
    lesson.fixed.push_back(read_setup(*entry, name, at));
  }
  return lesson;
}

std::vector<Lesson> read_catalogue(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw InputError(fmt::format("{}: not a folder of lessons", dir.string()));
  std::vector<fs::path> folders;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && fs::exists(entry.path() / "lesson.toml")) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  std::vector<Lesson> lessons;
  for (const fs::path& folder : folders) lessons.push_back(read_lesson(folder));
  return lessons;
}

namespace {

// Without its HTML comments (notes to the catalogue's maintainers, not to students).
std::string without_comments(std::string text) {
  for (auto start = text.find("<!--"); start != std::string::npos; start = text.find("<!--", start)) {
    const auto end = text.find("-->", start);
    text.erase(start, end == std::string::npos ? std::string::npos : end + 3 - start);
  }
  return text;
}

}  // namespace

LessonText read_lesson_text(const fs::path& readme) {
  const std::string text = without_comments(read_text(readme));
  const std::string where = readme.string();
  LessonText lesson;
  lesson.what_you_see = section(text, "What you see", where);
  lesson.why = section(text, "Why", where);
  lesson.fix = section(text, "The fix", where);
  // The closing paragraph of "Why" that starts with "Source:" names where the mechanism is written.
  const auto source = ("\n" + lesson.why).rfind("\nSource");
  if (source == std::string::npos)
    throw InputError(fmt::format("{}: '## Why' ends without a 'Source:' paragraph", where));
  const std::string paragraph = lesson.why.substr(source);
  lesson.source = trimmed(paragraph.substr(paragraph.find(':') + 1));
  lesson.why = trimmed(lesson.why.substr(0, source));
  return lesson;
}

std::string lesson_json(const Lesson& lesson, const LessonSetup& setup, const LessonText& text) {
  const nlohmann::json json = {
      {"name", lesson.name},
      {"title", lesson.title},
      {"summary", lesson.summary},
      {"setup", setup.name},
      {"args", setup.args},
      {"expected_exit", setup.expected_exit},
      {"what_you_see", text.what_you_see},
      {"why", text.why},
      {"fix", text.fix},
      {"source", text.source},
  };
  return json.dump(2) + "\n";
}

}  // namespace pipegrid::run
