#include "sim/output/run_folder.h"

#include <filesystem>
#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/output/atomic_file.h"

namespace pipegrid::output {

void make_output_dir(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw InputError(fmt::format("--out {}: cannot create the directory: {}", dir, error.message()));
}

void write_json(const std::string& dir, OutputFile file, const nlohmann::json& json) {
  write_atomically(output_path(dir, file), json.dump(2) + '\n');
}

}  // namespace pipegrid::output
