#include "sim/simgrid/simgrid_engine.h"

#include <fmt/format.h>
#include <iostream>
#include <xbt/config.hpp>

#include "common/input_error.h"
#include "common/interruption.h"
#include "common/log.h"
#include "common/sanitizers.h"

namespace pipegrid::sim {

void use_sanitizable_contexts() {
#if defined(PIPEGRID_ADDRESS_SANITIZER)
  // Set as a value, not parsed as a --cfg: it is how this build runs, not a change the user made, so
  // it prints no "Configuration change" line (the user's own <config> props still do, at info).
  simgrid::config::set_value<std::string>("contexts/factory", "thread");
#endif
}

namespace {

// CM02 bounds a flow's rate by TCP-gamma / (2 × route latency) (network_cm02.cpp). A platform that
// sets network/TCP-gamma to 0 asks for no window bound, and SimGrid's full solver (network/optim:Full)
// reads the resulting bound of 0 as none. Its lazy solver, the default, does not: with a bound of 0,
// of two flows started by two actors at the same instant one ignores its own links' capacity
// (measured on dgx-a100-1node.xml: two 80 MB flows in opposite directions over 300 GB/s NVLinks, one
// ends after 267.7 us, the other after 39.1 us, at the NVSwitch's 2.1 TB/s left over). A window so
// large that no flow can reach its bound says the same without tripping it. Set after the file's
// <config>, which would override it otherwise; the flag is read when each flow starts.
constexpr const char* kLiftedTcpGamma = "1e30";

void lift_zero_tcp_window() {
  if (simgrid::config::get_value<double>("network/TCP-gamma") <= 0)
    simgrid::s4u::Engine::set_config(std::string("network/TCP-gamma:") + kLiftedTcpGamma);
}

}  // namespace

void load_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const std::string& platform_file,
                   bool default_network_model) {
  // The engine, just made, has put its own SIGINT handler in place (EngineImpl::initialize: "CTRL-C
  // pressed", exit(1)): pipegrid's go back, so that an interrupted run still says so in its status.
  interruption::install();
  errors.loading(platform_file);
  if (default_network_model) {
    // Set, not defaulted: SimGrid's "default" host model hard-wires LV08 and turns cross-traffic on
    // (host_clm03.cpp) unless network/model is set. Both are set before the file loads, as a
    // --cfg would be; a <config> prop of the file (network/crosstraffic) comes later and wins.
    engine.set_config(std::string("network/model:") + kDefaultNetworkModel);
    engine.set_config("network/crosstraffic:0");
    // A notice, in the words it has always had, shown wherever warnings are (--log-level warn and above).
    if (log::platform().should_log(spdlog::level::warn))
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
  lift_zero_tcp_window();
  errors.loaded();
}

}  // namespace pipegrid::sim
