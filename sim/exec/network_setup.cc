#include "sim/exec/network_setup.h"

#include "sim/simgrid/simgrid_engine.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

void configure_engine(const SimulationInput& input) {
  if (input.speed_profiled_hosts.empty()) sg4::Engine::set_config("cpu/optim:TI");
  sg4::Engine::set_config("contexts/guard-size:0");
}

void load_job_platform(sg4::Engine& engine, SimGridErrors& errors, const SimulationInput& input) {
  configure_engine(input);
  load_platform(engine, errors, input.platform_file, input.default_network_model);
}

std::vector<sg4::Host*> job_hosts(const sg4::Engine& engine, const SimulationInput& input) {
  std::vector<sg4::Host*> hosts;
  for (int g = 0; g < input.placement.num_gpus(); ++g) hosts.push_back(engine.host_by_name(input.platform_gpus[g].host));
  return hosts;
}

void connect_network(Network& network, const sg4::Engine& engine, const SimulationInput& input,
                     const std::vector<sg4::Host*>& hosts, bool rails) {
  network.use_exec_flows(input.options.exec_flows);
  std::vector<int> node_of_gpu;
  for (const PlatformGpu& gpu : input.platform_gpus) node_of_gpu.push_back(gpu.node);
  if (rails) {
    std::vector<sg4::Host*> platform_hosts = hosts;
    for (std::size_t g = hosts.size(); g < input.platform_gpus.size(); ++g)
      platform_hosts.push_back(engine.host_by_name(input.platform_gpus[g].host));
    network.routes().use_rails(std::move(platform_hosts), node_of_gpu);
  }
  node_of_gpu.resize(hosts.size());
  network.routes().set_nvlink_collective_efficiency(input.options.nccl_nvlink_efficiency, std::move(node_of_gpu));
}

}  // namespace pipegrid::sim
