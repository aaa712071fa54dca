// The Hugging Face configs of experiments/models/, compiled in by CMake (model_config_files.cc.in).
#pragma once

#include <vector>

#include "sim/model/gpu_files.h"

namespace pipegrid::model {

/// One per folder of experiments/models/: `name` is the folder ("llama3.1-70b"), `text` its config.json.
const std::vector<DataFile>& model_config_files();

}  // namespace pipegrid::model
