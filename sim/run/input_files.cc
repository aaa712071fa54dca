#include "sim/run/input_files.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "common/input_error.h"
#include "common/version.h"
#include "sim/input/text_values.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_xml.h"
#include "sim/run/generated_platform.h"

namespace pipegrid::run {

std::string file_hash(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return "missing";
  if (!std::filesystem::is_regular_file(path, error)) return "not a regular file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "missing";
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a 64, as input::stable_hash
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 1099511628211ULL;
    }
    if (!in) break;
  }
  return fmt::format("{:016x}", hash);
}

const std::string& InputFingerprints::hash(const std::string& path) {
  auto it = hashes_.find(path);
  if (it == hashes_.end()) it = hashes_.emplace(path, file_hash(path)).first;
  return it->second;
}

std::vector<std::string> InputFingerprints::files(const input::Experiment& experiment) {
  std::vector<std::string> files;
  const input::OptionValues& v = experiment.values;
  if (experiment.command() == input::Command::Simulate) {
    if (v.has("platform")) {
      const std::string& platform = v.text("platform");
      files.push_back(platform);
      const std::string key = platform + "\n" + hash(platform);
      auto it = profiles_.find(key);
      if (it == profiles_.end()) {
        std::vector<std::string> profiles;
        try {
          profiles = platform::read_platform(platform).profile_files;
        } catch (const InputError&) {
          // The run will say what is wrong with the platform; its identity is the file itself.
        }
        it = profiles_.emplace(key, std::move(profiles)).first;
      }
      files.insert(files.end(), it->second.begin(), it->second.end());
    }
    if (const std::string loads = input::routing_file(v.text("routing")); !loads.empty()) files.push_back(loads);
    if (v.has("schedule-file")) files.push_back(v.text("schedule-file"));
    if (v.has("gpu-file")) files.push_back(v.text("gpu-file"));
  }
  return files;
}

std::vector<std::string> files_read(const input::Experiment& experiment) {
  std::vector<std::string> files = InputFingerprints().files(experiment);
  if (experiment.command() == input::Command::Check) files.push_back(experiment.values.text("file"));
  return files;
}

nlohmann::json InputFingerprints::of(const input::Experiment& experiment) {
  nlohmann::json files = nlohmann::json::array();
  for (const std::string& path : this->files(experiment)) files.push_back({{"path", path}, {"hash", hash(path)}});
  // A generated platform is read from no file the user has: its identity is the XML the generator
  // writes now, so a row made by another generator (same options) is not served as this one's.
  const input::OptionValues& v = experiment.values;
  if (experiment.command() == input::Command::Simulate && v.has("preset")) {
    std::string xml_hash = "invalid";
    try {
      const platform::ClusterSpec cluster = generated_cluster(v);
      check_generated_size(cluster);  // not generated in the sweep's process when the run will refuse it
      xml_hash = input::stable_hash(platform::platform_xml(cluster));
    } catch (const InputError&) {
      // The run will say what is wrong with the options.
    }
    files.push_back({{"path", "generated platform.xml"}, {"hash", xml_hash}});
  }
  return {{"version", kPipegridVersion}, {"files", std::move(files)}};
}

}  // namespace pipegrid::run
