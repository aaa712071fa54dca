// Paths inside experiment and sweep files are relative to that file's folder, not to where pipegrid
// runs: `base`, [platform] file, [sim] schedule_file, [model] gpu_file, routing's file:PATH and
// [output] out all resolve against the folder of the file that holds them (a sweep axis's values:
// the sweep file's). Command-line flags stay relative to the working directory.
#pragma once

#include <filesystem>
#include <string>

#include "sim/input/option_spec.h"
#include "sim/input/option_values.h"

namespace pipegrid::input {

/// Whether the option's text names a file or directory (Path options, names_path, path_prefix).
bool names_a_path(const OptionSpec& option);

/// `text` with its path taken from `folder` when the option names a path and the path is relative,
/// lexically normal and relative to the working directory ("exp/../platforms/a.xml" and
/// "/cwd/exp/../platforms/a.xml" are "platforms/a.xml"). Other text unchanged.
std::string path_from_folder(const OptionSpec& option, const std::string& text, const std::filesystem::path& folder);

/// The values with every relative path re-expressed from `folder` instead of the working directory,
/// so that an experiment file written into `folder` reads back to the same files.
OptionValues paths_seen_from(const OptionValues& values, const std::filesystem::path& folder);

}  // namespace pipegrid::input
