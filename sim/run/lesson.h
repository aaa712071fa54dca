// A lesson of the pitfalls catalogue (experiments/pitfalls/NAME/): what its setups run (lesson.toml)
// and what it teaches (README.md's sections), read so that each text lives once, in the README.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pipegrid::run {

/// One setup of a lesson: the pipegrid arguments it runs (paths relative to the lesson's folder) and
/// the exit code it must end with.
struct LessonSetup {
  std::string name;  // "broken", "fixed", or "fixed-NAME" when the lesson has several fixed setups
  std::vector<std::string> args;
  int expected_exit = 0;
};

struct Lesson {
  std::string name;  // the folder's name
  std::filesystem::path dir;
  std::string title;
  std::string summary;
  LessonSetup broken;
  std::vector<LessonSetup> fixed;
};

/// What lesson.json carries for the report (docs: issue 12's lesson.json): the README's sections
/// `## What you see`, `## Why` (without its closing "Source:" paragraph, which is `source`) and
/// `## The fix`, as written.
struct LessonText {
  std::string what_you_see;
  std::string why;
  std::string fix;
  std::string source;
};

/// Reads DIR/lesson.toml: title, summary, [broken] args and exit, one or more [[fixed]] (each with a
/// name when there are several). InputError `DIR/lesson.toml: …` when a key is missing or wrong.
Lesson read_lesson(const std::filesystem::path& dir);

/// Every lesson of the catalogue (each subfolder holding a lesson.toml), sorted by name. InputError when
/// DIR is not a folder.
std::vector<Lesson> read_catalogue(const std::filesystem::path& dir);

/// The README's sections; InputError naming the README and the section when one is missing.
LessonText read_lesson_text(const std::filesystem::path& readme);

/// lesson.json for one setup: name, title, summary, setup, args, expected_exit and the README's texts.
std::string lesson_json(const Lesson& lesson, const LessonSetup& setup, const LessonText& text);

}  // namespace pipegrid::run
