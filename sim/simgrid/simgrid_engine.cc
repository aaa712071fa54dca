#include "sim/simgrid/simgrid_engine.h"

#include <fmt/format.h>
#include <xbt/log.h>

#include "common/input_error.h"

namespace pipegrid::sim {

void use_sanitizable_contexts() {
#if defined(__SANITIZE_ADDRESS__)
  xbt_log_control_set("xbt_cfg.thresh:warning");  // not SimGrid's "Configuration change" line
  simgrid::s4u::Engine::set_config("contexts/factory:thread");
#endif
}

void load_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const std::string& platform_file) {
  errors.loading(platform_file);
  try {
    engine.load_platform(platform_file);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: SimGrid cannot load it: {}", platform_file, e.what()));
  }
  errors.loaded();
}

}  // namespace pipegrid::sim
