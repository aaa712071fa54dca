// Loads a generated platform in SimGrid (no pipegrid reader: any layout SimGrid accepts) and computes
// the routes a Megatron-style job on it needs: TP 8 inside each node, DP replicas on consecutive
// nodes, PP outermost (--placement tp-dp-pp). For each GPU: its TP ring neighbour (next GPU of the
// node), its DP ring neighbour (same GPU, next node of its DP group) and its next pipeline stage
// (same GPU, DP nodes further). Prints the wall times; run under /usr/bin/time -v for memory.
//   bench_zone_routes FILE.xml NODES DP [--print]   (--print: every route, one line each)
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <string>

#include "sim/platform/names.h"
#include "sim/platform/route_query.h"

int main(int argc, char** argv) {
  using namespace pipegrid::platform;
  if (argc < 4) {
    std::cerr << "usage: bench_zone_routes FILE.xml NODES DP [--print]\n";
    return 2;
  }
  const std::string file = argv[1];
  const int nodes = std::stoi(argv[2]), dp = std::stoi(argv[3]);
  const bool print = argc > 4 && std::string(argv[4]) == "--print";
  if (nodes < 1 || dp < 1 || nodes % dp != 0) {
    std::cerr << "bench_zone_routes: NODES must be a multiple of DP\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int node = 0; node < nodes; ++node) {
    const int replica = node % dp, stage_first = node - replica;
    for (int gpu = 0; gpu < 8; ++gpu) {
      const std::string host = gpu_host_name(node, gpu);
      pairs.emplace_back(host, gpu_host_name(node, (gpu + 1) % 8));
      if (dp > 1) pairs.emplace_back(host, gpu_host_name(stage_first + (replica + 1) % dp, gpu));
      if (node + dp < nodes) pairs.emplace_back(host, gpu_host_name(node + dp, gpu));
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SimRoute> routes = simgrid_routes(file, pairs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t links = 0;
  for (const SimRoute& route : routes) {
    links += route.links.size();
    if (!print) continue;
    std::cout << route.src << " -> " << route.dst << fmt::format(" latency {:.17g}:", route.latency);
    for (const SimRouteLink& link : route.links)
      std::cout << fmt::format(" {}@{:.17g}/{:.17g}", link.name, link.bandwidth, link.latency);
    std::cout << '\n';
  }
  std::cerr << fmt::format("{}: {} GPUs, SimGrid load + {} routes ({} links): {:.3f} s\n", file, 8 * nodes,
                           routes.size(), links, seconds);
}
