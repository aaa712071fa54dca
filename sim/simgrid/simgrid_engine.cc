#include "sim/simgrid/simgrid_engine.h"

#include <fmt/format.h>
#include <iostream>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include "common/input_error.h"

namespace pipegrid::sim {

void use_sanitizable_contexts() {
#if defined(__SANITIZE_ADDRESS__)
  xbt_log_control_set("xbt_cfg.thresh:warning");  // not SimGrid's "Configuration change" line
  simgrid::s4u::Engine::set_config("contexts/factory:thread");
#endif
}

void load_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const std::string& platform_file,
                   bool default_network_model) {
  errors.loading(platform_file);
  if (default_network_model) {
    // Set, not defaulted: SimGrid's "default" host model hard-wires LV08 and turns cross-traffic on
    // (host_clm03.cpp) unless network/model is set. Both are set before the file loads, as a
    // --cfg would be; a <config> prop of the file (network/crosstraffic) comes later and wins.
    engine.set_config(std::string("network/model:") + kDefaultNetworkModel);
    engine.set_config("network/crosstraffic:0");
    std::cerr << fmt::format("pipegrid: notice: {} sets no network/model in <config>: running pipegrid's default {} "
                             "(bandwidth and latency factors 1.0, no cross-traffic); choose another with <prop "
                             "id=\"network/model\" value=\"LV08\"/> in <config> (platforms/README.md)\n",
                             platform_file, kDefaultNetworkModel);
  }
  try {
    engine.load_platform(platform_file);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: SimGrid cannot load it: {}", platform_file, e.what()));
  }
  errors.loaded();
}

}  // namespace pipegrid::sim
