// The files a run reads besides its options — the platform file, the profiles it names, a routing's
// loads — with the hash of their content: with pipegrid's version, what a sweep configuration's
// results depend on besides its options, so that editing a file reruns exactly the configurations
// that read it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/input/experiment_file.h"

namespace pipegrid::run {

/// FNV-1a 64 of a file's bytes as 16 hex digits; "missing" when it cannot be opened; "not a regular
/// file" for a pipe or a device, whose content cannot be read without consuming it.
std::string file_hash(const std::string& path);

/// Fingerprints of experiments, each file read and hashed once per instance (a sweep's many
/// configurations mostly share one platform).
class InputFingerprints {
 public:
  /// The files `experiment` reads, in order: the platform file and the profiles it names (none when
  /// the platform does not read), then a routing's loads file, a schedule file and a GPU file.
  std::vector<std::string> files(const input::Experiment& experiment);
  /// {"version": "0.3.0", "files": [{"path": …, "hash": …}, …]}.
  nlohmann::json of(const input::Experiment& experiment);

 private:
  const std::string& hash(const std::string& path);
  std::map<std::string, std::string> hashes_;
  std::map<std::string, std::vector<std::string>> profiles_;  // by platform path and hash
};

/// Every file `experiment` reads, for the check that no input of a run is among its outputs
/// (sim/output/output_folder.h): a simulation's (InputFingerprints::files: the platform read for its
/// profiles), check's schedule CSV. Not hashed.
std::vector<std::string> files_read(const input::Experiment& experiment);

}  // namespace pipegrid::run
