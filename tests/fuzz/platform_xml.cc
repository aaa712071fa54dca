// Fuzzes the platform reader (sim/platform/platform_reader.h): read_platform_text on any text, as a
// file platform.xml in a scratch directory that also holds three profile files (bw.txt, lat.txt,
// trace.txt) for bandwidth_file, latency_file and <trace file> to find. InputError is the expected
// rejection. What it accepts must keep the promises of PlatformFacts: at least one GPU, sorted by
// (node, gpu) and unique there, positive finite speeds, bandwidths and memories, finite non-negative
// latencies, routes between declared netpoints over declared links, clusters with hosts and a
// positive narrowest bandwidth.
#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "sim/platform/platform_reader.h"

using namespace pipegrid;
using namespace pipegrid::platform;

namespace {

const std::string& platform_path() {
  static const std::string path = [] {
    fuzz::write_scratch("bw.txt", "0 1e9\n1 2e9\nLOOPAFTER 1\n");
    fuzz::write_scratch("lat.txt", "0 1e-6\n2 2e-6\n");
    fuzz::write_scratch("trace.txt", "PERIODICITY 5\n0 1\n1 0.5\n");
    return fuzz::scratch_dir() + "/platform.xml";
  }();
  return path;
}

void check_facts(const PlatformFacts& facts) {
  fuzz::check(!facts.gpus.empty(), "accepted without GPUs");
  std::set<std::pair<int, int>> slots;
  for (std::size_t i = 0; i < facts.gpus.size(); ++i) {
    const GpuHost& gpu = facts.gpus[i];
    fuzz::check(std::isfinite(gpu.speed) && gpu.speed > 0, "GPU " + gpu.name + ": speed not positive and finite");
    fuzz::check(gpu.memory > 0 && gpu.node >= 0 && gpu.gpu >= 0, "GPU " + gpu.name + ": bad memory, node or gpu");
    fuzz::check(slots.emplace(gpu.node, gpu.gpu).second, "GPU " + gpu.name + ": (node, gpu) taken twice");
    fuzz::check(i == 0 || std::pair(facts.gpus[i - 1].node, facts.gpus[i - 1].gpu) < std::pair(gpu.node, gpu.gpu),
                "GPUs not sorted by (node, gpu)");
    fuzz::check(facts.find_gpu(gpu.name) == &gpu, "GPU " + gpu.name + ": not found by name");
  }
  for (const LinkFacts& link : facts.links) {
    fuzz::check(std::isfinite(link.bandwidth) && link.bandwidth > 0, "link " + link.name + ": bandwidth");
    fuzz::check(std::isfinite(link.latency) && link.latency >= 0, "link " + link.name + ": latency");
    fuzz::check(facts.find_link(link.name) == &link, "link " + link.name + ": not found by name");
  }
  for (const RouteFacts& route : facts.routes)
    for (const LinkUse& use : route.links) fuzz::check(facts.find_link(use.link) != nullptr, "route over no link");
  for (const ClusterFacts& cluster : facts.clusters)
    fuzz::check(cluster.hosts > 0 && std::isfinite(cluster.narrowest) && cluster.narrowest > 0 &&
                    cluster.narrowest <= cluster.bandwidth,
                "cluster " + cluster.id + ": no hosts, or a narrowest bandwidth not positive or above bw");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = platform_path();
  try {
    const PlatformFacts facts = read_platform_text(path, std::string(fuzz::text_of(data, size)));
    check_facts(facts);
    fuzz::accepted(std::to_string(facts.gpus.size()) + " GPUs, " + std::to_string(facts.links.size()) + " links");
  } catch (const InputError& e) {
    fuzz::rejected(e.what());
  }
  return 0;
}
