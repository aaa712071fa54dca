#include "sim/report/run_files.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "common/input_error.h"

namespace pipegrid::report {

namespace {

namespace fs = std::filesystem;

// Whether `path` exists; InputError when it is something a report must not open (a device, a FIFO
// would block for ever) or is larger than `max_bytes`.
bool present(const std::string& path, std::uintmax_t max_bytes) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || status.type() == fs::file_type::not_found) return false;
  if (status.type() != fs::file_type::regular) throw InputError(fmt::format("{}: not a regular file", path));
  if (max_bytes > 0 && fs::file_size(path, error) > max_bytes)
    throw InputError(fmt::format("{}: larger than {} MiB, more than a report reads", path, max_bytes >> 20));
  return true;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<std::string> read_text_file(const std::string& path, std::uintmax_t max_bytes) {
  if (!present(path, max_bytes)) return std::nullopt;
  return slurp(path);
}

std::optional<nlohmann::json> read_json_file(const std::string& path) {
  const std::optional<std::string> text = read_text_file(path, 64u << 20);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

RunFiles read_run_files(const std::string& dir) {
  RunFiles files;
  files.dir = dir;
  while (files.dir.size() > 1 && files.dir.back() == '/') files.dir.pop_back();
  std::error_code error;
  if (!fs::exists(files.dir, error)) throw InputError(fmt::format("{}: no such directory", dir));
  if (!fs::is_directory(files.dir, error)) throw InputError(fmt::format("{}: not a directory", dir));
  using output::OutputFile;
  files.summary = read_json_file(files.path(OutputFile::Summary));
  files.deadlock = read_json_file(files.path(OutputFile::Deadlock));
  files.lesson = read_json_file(files.path(OutputFile::Lesson));
  if (present(files.path(OutputFile::Experiment), 1u << 20)) files.experiment = slurp(files.path(OutputFile::Experiment));
  files.trace = present(files.path(OutputFile::TraceCsv), 0);
  files.links = present(files.path(OutputFile::Links), 0);
  files.status = output::read_status(files.dir);
  return files;
}

bool RunFiles::has(output::OutputFile file) const {
  switch (file) {
    case output::OutputFile::Summary: return summary.has_value();
    case output::OutputFile::TraceCsv: return trace;
    case output::OutputFile::Deadlock: return deadlock.has_value();
    case output::OutputFile::Links: return links;
    case output::OutputFile::Experiment: return experiment.has_value();
    case output::OutputFile::Lesson: return lesson.has_value();
    default: return false;
  }
}

}  // namespace pipegrid::report
