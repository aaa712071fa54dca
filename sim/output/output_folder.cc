#include "sim/output/output_folder.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/interruption.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "sim/output/run_folder.h"

namespace pipegrid::output {

namespace {

namespace fs = std::filesystem;

bool left_by_a_run(const std::string& name) {
  for (OutputFile file : run_files()) {
    const std::string_view own(output_file(file).name);
    if (name == own || is_temporary_of(name, own) || name == std::string(own) + ".interrupted") return true;
  }
  return false;
}

}  // namespace

void refuse_inputs_among_outputs(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                 const std::string& dir) {
  for (const std::string& input : inputs)
    for (const std::string& output : outputs) {
      std::error_code error;
      if (fs::equivalent(input, output, error))
        throw InputError(fmt::format("{}: an input of this command is also one of its outputs, {}: choose another "
                                     "--out than {}",
                                     input, output, dir));
    }
}

std::vector<std::string> earlier_run_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (left_by_a_run(name) && !entry.is_directory(error)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

OutputFolder::OutputFolder(const std::string& dir, const std::function<std::vector<std::string>()>& inputs,
                           RunIdentity who)
    : dir_(dir), who_(std::move(who)) {
  make_output_dir(dir_);
  lock_.emplace(dir_);
  const std::vector<std::string> earlier = earlier_run_files(dir_);
  // Only a folder that holds such a file can hold an input among them: a fresh one costs no look at
  // the inputs (a platform's profiles are found by reading it).
  if (!earlier.empty()) refuse_inputs_among_outputs(inputs(), earlier, dir_);
  for (const std::string& file : earlier) {
    std::error_code error;
    fs::remove(file, error);
    if (error)
      throw InputError(fmt::format("--out {}: cannot remove {}, left by an earlier run: {}", dir_, file,
                                   error.message()));
  }
  const std::string status = output_path(dir_, OutputFile::Status);
  interrupted_ = interruption::write_on_interrupt(
      status, [&](int signal) { return status_text(interrupted_status(who_, signal)); });
  said_ = interruption::say_on_interrupt([&](int signal) {
    return fmt::format("pipegrid: interrupted by {}; {} says so\n", interruption::signal_name(signal), status);
  });
  write_atomically(status, status_text(running_status(who_)));
}

void OutputFolder::finish(int exit_code, const std::string& message) {
  write_atomically(output_path(dir_, OutputFile::Status), status_text(ended_status(who_, exit_code, message)));
}

OutputFolder::~OutputFolder() {
  interruption::forget(interrupted_);
  interruption::forget(said_);
}

}  // namespace pipegrid::output
