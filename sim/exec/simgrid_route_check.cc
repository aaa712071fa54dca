#include "sim/exec/simgrid_route_check.h"

#include <fmt/format.h>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "common/input_error.h"
#include "sim/exec/needed_routes.h"

namespace pipegrid::sim {

namespace {

bool routed(const simgrid::s4u::Engine& engine, const std::string& src, const std::string& dst) {
  if (src == dst) return true;
  std::vector<simgrid::s4u::Link*> links;
  try {
    engine.host_by_name(src)->route_to(engine.host_by_name(dst), links, nullptr);
  } catch (const std::exception&) {  // std::invalid_argument, simgrid::AssertionError (a std::runtime_error)
    return false;
  }
  return !links.empty();
}

}  // namespace

bool check_routes_in_simgrid(const simgrid::s4u::Engine& engine, const SimulationInput& input) {
  for (const NeededRoute& need : needed_routes(input)) {
    const std::string& src = input.platform_gpus[need.src_gpu].host;
    const std::string& dst = input.platform_gpus[need.dst_gpu].host;
    if (!routed(engine, src, dst))
      throw InputError(fmt::format("{}: no route from {} to {}, which {} need", input.platform_file, src, dst, need.why));
  }
  if (!input.rails) return false;
  for (const NeededRoute& need : rail_routes(input))
    if (!routed(engine, input.platform_gpus[need.src_gpu].host, input.platform_gpus[need.dst_gpu].host)) return false;
  return true;
}

}  // namespace pipegrid::sim
