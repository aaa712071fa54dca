// The files of platforms/gpus/, compiled in by CMake (gpu_files.cc.in).
#pragma once

#include <string_view>
#include <vector>

namespace pipegrid::model {

struct DataFile {
  std::string_view name;  // "a100-80gb.toml"
  std::string_view text;
};

const std::vector<DataFile>& gpu_files();

}  // namespace pipegrid::model
