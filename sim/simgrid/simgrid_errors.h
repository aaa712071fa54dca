// The last resort against SimGrid's fatal errors. pipegrid checks its inputs before SimGrid sees them
// (the platform reader, the run layer), but SimGrid can still die in ways no check foresaw: xbt_die
// logs a CRITICAL line and calls abort(), and an exception escaping an actor ends the process the same
// way. What the user sees then must be pipegrid's one line and exit code, not SimGrid's dump.
#pragma once

#include <string>

namespace pipegrid::sim {

/// While it lives (one per engine, made right after the engine): SimGrid's first ERROR or CRITICAL line is
/// kept (its log reaches stderr through pipegrid's, simgrid_logs.h), and an abort ends the process with one
/// line built from the first of them: "pipegrid: error: FILE: SimGrid cannot load it: …" (exit code 2)
/// while a platform file is loading, "pipegrid: internal error: SimGrid: …" (exit code 70) otherwise.
class SimGridErrors {
 public:
  SimGridErrors();
  ~SimGridErrors();
  SimGridErrors(const SimGridErrors&) = delete;
  SimGridErrors& operator=(const SimGridErrors&) = delete;

  /// Marks `platform_file` as loading, until loaded().
  void loading(const std::string& platform_file);
  void loaded();
};

}  // namespace pipegrid::sim
