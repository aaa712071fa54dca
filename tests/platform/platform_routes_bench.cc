// Loads a platform in SimGrid and computes the route from every GPU to its pipeline neighbour, the
// GPU with the same index on the next node (wrapping around): what an executor asks of SimGrid
// before its first transfer. Run under /usr/bin/time -v for memory; prints the wall time.
//   platform_routes_bench platforms/superpod-a100-384node.xml
#include <chrono>
#include <fmt/format.h>
#include <iostream>

#include "sim/platform/platform_reader.h"
#include "sim/platform/route_query.h"

int main(int argc, char** argv) {
  using namespace pipegrid::platform;
  if (argc != 2) {
    std::cerr << "usage: platform_routes_bench PLATFORM.xml\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const PlatformFacts facts = read_platform(argv[1]);
  const auto read = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, std::string>> pairs;
  const std::size_t gpus = facts.gpus.size(), per_node = gpus / static_cast<std::size_t>(facts.nodes);
  for (std::size_t i = 0; i < gpus; ++i) pairs.emplace_back(facts.gpus[i].name, facts.gpus[(i + per_node) % gpus].name);
  const auto routes = simgrid_routes(argv[1], pairs);
  const auto done = std::chrono::steady_clock::now();
  std::size_t links = 0;
  for (const SimRoute& route : routes) links += route.links.size();
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::cout << fmt::format("{}: {} GPUs; read_platform {:.3f} s; SimGrid load + {} routes ({} links) {:.3f} s\n",
                           argv[1], gpus, seconds(start, read), routes.size(), links, seconds(read, done));
}
