// A run's output folder: made when the run starts, its JSON files written the one way (indented by
// two, a newline at the end), each under its catalogue name (output_files.h). The folder's hold for
// a run's life — lock, cleaning, status — is output_folder.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/output/output_files.h"

namespace pipegrid::output {

/// Makes DIR and its parents; InputError "--out DIR: cannot create the directory: …".
void make_output_dir(const std::string& dir);

/// DIR/NAME of `file`, holding `json`, written whole or not at all (atomic_file.h); IoError "DIR/NAME: …".
void write_json(const std::string& dir, OutputFile file, const nlohmann::json& json);

}  // namespace pipegrid::output
