// A platform generated for a run from platform gen's options ([platform] preset, nodes, ib_bw, … or
// simulate's --preset, --nodes, …) instead of read from --platform FILE. SimGrid loads platforms from
// files only (s4u::Engine::load_platform), so the XML goes to a file: DIR/platform.xml with --out,
// else a temporary directory removed when the run ends.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "sim/input/option_values.h"
#include "sim/platform/cluster_spec.h"
#include "sim/output/output_files.h"

namespace pipegrid::run {

/// platform gen's options as given (flags or [platform] keys); absent ones keep the preset's values.
platform::ClusterOptions cluster_options(const input::OptionValues& values);

/// The checked cluster of a run that generates its platform (values has --preset). InputError when
/// --nodes is missing or an option breaks make_cluster_spec's rules.
platform::ClusterSpec generated_cluster(const input::OptionValues& values);

/// Refuses a generated platform too large to simulate on this machine (every GPU host at limits.h's
/// kBytesPerGpu): InputError "--nodes 1000000: a generated platform of 8000000 GPUs needs ~2.0 TB …".
void check_generated_size(const platform::ClusterSpec& cluster);

/// For a run with --platform FILE: InputError naming the first of platform gen's options given with
/// it (they shape a generated platform only).
void check_no_generator_options(const input::OptionValues& values);

/// Writes the generated XML to OUT/platform.xml (creating OUT) and returns that path. InputError "--out
/// OUT: cannot create the directory: …", IoError "OUT/platform.xml: …".
std::string write_generated_platform(const std::string& out, const std::string& xml);

/// The generated XML in a file of its own temporary directory, removed with this object.
class GeneratedPlatformFile {
 public:
  explicit GeneratedPlatformFile(const std::string& xml);
  ~GeneratedPlatformFile();
  GeneratedPlatformFile(const GeneratedPlatformFile&) = delete;
  GeneratedPlatformFile& operator=(const GeneratedPlatformFile&) = delete;
  std::string file() const { return output::output_path(dir_.string(), output::OutputFile::PlatformXml); }

 private:
  std::filesystem::path dir_;
};

}  // namespace pipegrid::run
