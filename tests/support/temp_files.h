// Files a test makes and reads back; no pipegrid binary needed (command_runner.h adds running it).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace pipegrid::test_support {

/// An empty directory of its own under the test's temporary one: TMP/pipegrid-NAME-PID.
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace pipegrid::test_support
