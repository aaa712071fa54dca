#include "sim/input/relative_paths.h"

namespace pipegrid::input {

namespace fs = std::filesystem;

namespace {

// The prefix and the path of `text` (no path: an empty one).
std::pair<std::string, std::string> split_path(const OptionSpec& option, const std::string& text) {
  if (!option.path_prefix.empty()) {
    if (!text.starts_with(option.path_prefix)) return {text, ""};
    return {std::string(option.path_prefix), text.substr(option.path_prefix.size())};
  }
  return {"", text};
}

}  // namespace

bool names_a_path(const OptionSpec& option) {
  return option.type == ValueType::Path || option.names_path || !option.path_prefix.empty();
}

std::string path_from_folder(const OptionSpec& option, const std::string& text, const fs::path& folder) {
  if (!names_a_path(option) || folder.empty()) return text;
  const auto [prefix, path] = split_path(option, text);
  if (path.empty() || fs::path(path).is_absolute()) return text;
  fs::path resolved = (folder / path).lexically_normal();
  // Relative to the working directory, however the file was named (sweep.toml or /abs/sweep.toml):
  // a configuration's identity hashes the path, and one file must be one experiment.
  std::error_code error;
  const fs::path cwd = fs::current_path(error);
  if (!error && resolved.is_absolute())
    if (const fs::path relative = resolved.lexically_relative(cwd); !relative.empty()) resolved = relative;
  return prefix + resolved.string();
}

OptionValues paths_seen_from(const OptionValues& values, const fs::path& folder) {
  OptionValues seen = values;
  const fs::path from = fs::absolute(folder).lexically_normal();
  for (const auto& [option, value] : values.given()) {
    if (!names_a_path(*option) || !std::holds_alternative<std::string>(*value)) continue;
    const auto [prefix, path] = split_path(*option, std::get<std::string>(*value));
    if (path.empty() || fs::path(path).is_absolute()) continue;
    seen.set(*option, prefix + fs::absolute(path).lexically_normal().lexically_relative(from).string());
  }
  return seen;
}

}  // namespace pipegrid::input
