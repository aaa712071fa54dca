// Helpers shared by the platform tests: generated platforms, files in a temporary directory,
// and (from error_of.h) the message of an InputError.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

#include "error_of.h"
#include "sim/platform/cluster_spec.h"
#include "sim/platform/platform_xml.h"

namespace pipegrid::platform::test_support {

/// The checked-in platforms/ folder.
inline const std::string kPlatforms = PIPEGRID_PLATFORMS;

/// `pipegrid platform gen --preset PRESET --nodes NODES` with whatever else `options` sets.
inline std::string generated_xml(const std::string& preset, long nodes, ClusterOptions options = {}) {
  options.preset = preset;
  options.nodes = nodes;
  return platform_xml(make_cluster_spec(options));
}

/// A directory of this process's own, removed when it ends: ctest runs tests in parallel processes,
/// which must not write the same file.
inline const std::string& temp_dir() {
  struct Dir {
    std::string path;
    Dir() {
      std::string pattern = ::testing::TempDir() + "pipegrid-platform-XXXXXX";
      path = std::string(mkdtemp(pattern.data())) + "/";
    }
    ~Dir() { std::filesystem::remove_all(path); }
  };
  static const Dir dir;
  return dir.path;
}

/// Writes `text` to a file of that name in the process's temporary directory and returns its path.
inline std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = temp_dir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `text` with its one occurrence of `from` replaced by `to`; fails the test when there is not
/// exactly one, so that an edit cannot silently miss.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs more than once";
  return text.replace(at, from.size(), to);
}

}  // namespace pipegrid::platform::test_support
