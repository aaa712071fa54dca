// Collectives between nodes with one ring per rail (rails.h, collectives.h) against hand computations
// on tests/data/platforms/rails-2node-2nic.xml: gpu0, gpu1 on node 0 and gpu2, gpu3 on node 1; within
// a node 1 ms and 100 GB/s from GPU to GPU (NVLink); the first GPU of each node on rail 0, the second
// on rail 1, each with its own NIC: 2 ms and 1 GB/s between GPUs of one rail, 4 ms and 1 GB/s between
// rails (through the spine). rails-2node-1nic.xml is the same with one NIC per node (2 ms and 1 GB/s
// between any two GPUs of different nodes). Tolerance: 1e-9 relative.
//
// A ring of n members over C channels (C = the distinct rails among a node's members) sends S / (n·C)
// per channel and hop at each of its 2(n − 1) steps; every hop is one flow between two members.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <string>
#include <vector>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "sim/network/collectives.h"
#include "sim/exec/needed_routes.h"
#include "sim/network/rails.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {
namespace {

namespace sg4 = simgrid::s4u;

const std::string kTwoNics = test_support::kPlatforms + "/rails-2node-2nic.xml";
const std::string kOneNic = test_support::kPlatforms + "/rails-2node-1nic.xml";
constexpr double kBytes = 1e9;
constexpr double kRail = 1e9;        // InfiniBand, per rail
constexpr double kSameRail = 2e-3;   // two InfiniBand ports
constexpr double kCrossRail = 4e-3;  // and two uplinks

int prop(const sg4::Host* host, const char* name) { return std::stoi(host->get_property(name)); }

// Runs `body` in one actor per job GPU (`job`: host names; the body gets its index in `job`) with a
// Network over the job's GPUs — and, with `rails`, over the platform's rails: every GPU of the
// platform, the job's first, the others in platform order (by node, then index), as the executor does.
template <typename Body>
void on_platform(const std::string& platform, const std::vector<std::string>& job, bool rails, Body body) {
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  engine.load_platform(platform);
  std::vector<sg4::Host*> hosts;
  for (const std::string& host : job) hosts.push_back(engine.host_by_name(host));
  Network network(hosts);
  if (rails) {
    std::vector<sg4::Host*> gpus;
    for (sg4::Host* host : engine.get_all_hosts())
      if (host->get_property("role") && std::string(host->get_property("role")) == "gpu") gpus.push_back(host);
    std::sort(gpus.begin(), gpus.end(), [](const sg4::Host* a, const sg4::Host* b) {
      return std::pair(prop(a, "node"), prop(a, "gpu")) < std::pair(prop(b, "node"), prop(b, "gpu"));
    });
    std::vector<sg4::Host*> platform_gpus = hosts;
    for (sg4::Host* host : gpus)
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) platform_gpus.push_back(host);
    std::vector<int> nodes;
    for (const sg4::Host* host : platform_gpus) nodes.push_back(prop(host, "node"));
    network.routes().use_rails(std::move(platform_gpus), std::move(nodes));
  }
  Transfers transfers(network, static_cast<int>(job.size()));
  for (int g = 0; g < static_cast<int>(job.size()); ++g)
    sg4::Actor::create(job[g], hosts[g], [&, g] { body(g, network, transfers); });
  engine.run();
}

void ring(Transfers& transfers, const std::vector<int>& group, int member, double bytes = kBytes) {
  ring_allreduce_flows(
      transfers, group, member, bytes, FlowKind::DataAllReduce,
      [](std::uint64_t, std::uint64_t step) { return gradient_tag(TagSpace::Data, step); }, 0);
}

// Every member of `group` (job indices 0 … n − 1) runs one ring all-reduce of `bytes`; returns when
// each was done, and the analytic time.
std::pair<std::vector<double>, double> run_ring(const std::string& platform, const std::vector<std::string>& job,
                                                bool rails, double bytes = kBytes) {
  std::vector<int> group(job.size());
  for (int g = 0; g < static_cast<int>(group.size()); ++g) group[g] = g;
  std::vector<double> done(job.size(), 0);
  double analytic = 0;
  on_platform(platform, job, rails, [&](int gpu, Network& network, Transfers& transfers) {
    ring(transfers, group, gpu, bytes);
    done[gpu] = sg4::Engine::get_clock();
    if (gpu == 0) analytic = ring_allreduce_seconds(network, group, bytes);
  });
  return {done, analytic};
}

TEST(Multirail, RailsAreFoundFromTheRoutes) {
  on_platform(kTwoNics, {"gpu0", "gpu1", "gpu2", "gpu3"}, true, [](int gpu, Network& network, Transfers&) {
    if (gpu != 0) return;
    Rails& rails = *network.routes().rails();
    EXPECT_EQ(rails.of_node(0), (std::vector<std::vector<int>>{{0}, {1}}));
    EXPECT_EQ(rails.of_node(1), (std::vector<std::vector<int>>{{2}, {3}}));
    EXPECT_EQ(rails.channels({0, 1}), 1);  // within a node: one ring, as before
    EXPECT_EQ(rails.channels({0, 2}), 1);  // one member per node: one rail
    EXPECT_EQ(rails.rings({0, 2}), (std::vector<std::vector<int>>{{0, 2}}));
    // Two members per node on two rails: two rings, each entering a node on one rail and leaving it on
    // the other. Ring 0 leaves node 0 from gpu0 to gpu2 on rail 0 and node 1 from gpu3 to gpu1 on rail
    // 1; ring 1 the other way round.
    EXPECT_EQ(rails.rings({0, 1, 2, 3}), (std::vector<std::vector<int>>{{1, 0, 2, 3}, {0, 1, 3, 2}}));
    // The group's order does not matter beyond which node comes first and the members' order.
    EXPECT_EQ(rails.rings({2, 0, 3, 1}), (std::vector<std::vector<int>>{{3, 2, 0, 1}, {2, 3, 1, 0}}));
  });
}

TEST(Multirail, OneNicPerNodeIsOneRail) {
  on_platform(kOneNic, {"gpu0", "gpu1", "gpu2", "gpu3"}, true, [](int gpu, Network& network, Transfers&) {
    if (gpu != 0) return;
    EXPECT_EQ(network.routes().rails()->of_node(0), (std::vector<std::vector<int>>{{0, 1}}));
    EXPECT_EQ(network.routes().rails()->channels({0, 2}), 1);
    EXPECT_EQ(network.routes().rails()->rings({0, 1, 2, 3}), (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  });
}

TEST(Multirail, PortsThatAlsoCarryTheNodesOwnTrafficAreNoRails) {
  // ideal-16gpu.xml: every GPU's one port to the switch is on its routes to the other node and to its
  // own node's GPUs alike.
  std::vector<std::string> job;
  for (int g = 0; g < 16; ++g) job.push_back("gpu" + std::to_string(g));
  on_platform(test_support::kPlatforms + "/ideal-16gpu.xml", job, true, [](int gpu, Network& network, Transfers&) {
    if (gpu != 0) return;
    EXPECT_EQ(network.routes().rails()->of_node(0).size(), 1u);
    EXPECT_EQ(network.routes().rails()->channels({0, 1, 8, 9}), 1);
  });
}

TEST(Multirail, AGeneratedPlatformHasOneRailPerNic) {
  // platforms/dgx-a100-2node.xml: 8 GPUs and 8 NICs per node, GPU g on NIC g.
  std::vector<std::string> job;
  for (int g = 0; g < 16; ++g) job.push_back("node" + std::to_string(g / 8) + "-gpu" + std::to_string(g % 8));
  on_platform(PIPEGRID_TEST_DATA "/../../platforms/dgx-a100-2node.xml", job, true,
              [](int gpu, Network& network, Transfers&) {
                if (gpu != 0) return;
                Rails& rails = *network.routes().rails();
                ASSERT_EQ(rails.of_node(1).size(), 8u);
                for (int c = 0; c < 8; ++c) EXPECT_EQ(rails.of_node(1)[c], std::vector<int>{8 + c});
                EXPECT_EQ(rails.channels({0, 8}), 1);  // a DP ring at TP 8
                std::vector<int> all(16);
                for (int g = 0; g < 16; ++g) all[g] = g;
                const std::vector<std::vector<int>>& rings = rails.rings(all);
                ASSERT_EQ(rings.size(), 8u);
                // Ring 3 enters node 0 at gpu 4 and leaves it from gpu 3, on to gpu 11 on rail 3; it
                // leaves node 1 from gpu 12, back to gpu 4 on rail 4.
                EXPECT_EQ(rings[3], (std::vector<int>{4, 0, 1, 2, 5, 6, 7, 3, 11, 8, 9, 10, 13, 14, 15, 12}));
                EXPECT_EQ(rings[7], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 15, 9, 10, 11, 12, 13, 14, 8}));
              });
}

TEST(Multirail, ThreeNodesAlternateTheirRails) {
  // dgx-a100-3node.xml (platform gen --preset dgx-a100 --nodes 3): GPU g of a node on NIC g. Three
  // nodes cannot alternate between two rails: with C = 2 the crossing back to node 0 changes rail
  // (gpu 16 on rail 0 to gpu 1 on rail 1, gpu 17 to gpu 0); with C = 3 it takes the third.
  std::vector<std::string> job;
  for (int g = 0; g < 24; ++g) job.push_back("node" + std::to_string(g / 8) + "-gpu" + std::to_string(g % 8));
  on_platform(test_support::kPlatforms + "/dgx-a100-3node.xml", job, true, [](int gpu, Network& network, Transfers&) {
    if (gpu != 0) return;
    Rails& rails = *network.routes().rails();
    EXPECT_EQ(rails.rings({0, 1, 8, 9, 16, 17}),
              (std::vector<std::vector<int>>{{1, 0, 8, 9, 17, 16}, {0, 1, 9, 8, 16, 17}}));
    // Crossings 0 → 8, 9 → 17, 18 → 2 (rails 0, 1, 2); 1 → 9, 10 → 18, 16 → 0; 2 → 10, 8 → 16, 17 → 1.
    EXPECT_EQ(rails.rings({0, 1, 2, 8, 9, 10, 16, 17, 18}), (std::vector<std::vector<int>>{
                                                                {2, 1, 0, 8, 10, 9, 17, 16, 18},
                                                                {0, 2, 1, 9, 8, 10, 18, 17, 16},
                                                                {1, 0, 2, 10, 9, 8, 16, 18, 17},
                                                            }));
  });
}

TEST(Multirail, ThreeNodesFlowsAndFormulaAgree) {
  // GPUs 0 and 1 of each of the three nodes (job indices 0 … 5): two rings, each with one crossing that
  // changes rail, through the spine. Nothing shares a link direction, so the flows take what the α-β
  // formula says: every step lasts as long as the crossing that changes rail. (1.2 GB: pieces of
  // S / (n·C) = 0.1 GB, whole bytes, as flows carry.)
  std::vector<std::string> job;
  for (int node = 0; node < 3; ++node)
    for (int g = 0; g < 2; ++g) job.push_back("node" + std::to_string(node) + "-gpu" + std::to_string(g));
  const std::string platform = test_support::kPlatforms + "/dgx-a100-3node.xml";
  const auto [done, analytic] = run_ring(platform, job, true, 1.2e9);
  for (int gpu = 0; gpu < 6; ++gpu) EXPECT_NEAR(done[gpu], analytic, 1e-9 * analytic) << "gpu " << gpu;
  // At least 2(n − 1)/n · (S / C) / 25 GB/s: the two channels each carried half.
  EXPECT_GT(analytic, 2.0 * 5 / 6 * 0.6e9 / 25e9);
  EXPECT_LT(analytic, 2.0 * 5 / 6 * 1.2e9 / 25e9);
}

TEST(Multirail, TensorParallelFourAcrossTwoNodesUsesBothRails) {
  // (1) TP 4 across the nodes: rings 1 → 0 → 2 → 3 → 1 and 0 → 1 → 3 → 2 → 0 (C = 2), n = 4,
  // 2(n − 1) = 6 steps of S/(n·C) = 0.125 GB per channel and hop. Between nodes each InfiniBand port
  // direction carries one channel's flow (gpu0 → gpu2 and gpu3 → gpu1 for ring 0, gpu1 → gpu3 and
  // gpu2 → gpu0 for ring 1): 2 ms + 0.125 GB / 1 GB/s = 0.127 s; within a node 1 ms + 0.125 GB /
  // 100 GB/s = 2.25 ms. Every member receives one piece over InfiniBand at each step, so each step
  // takes 0.127 s: 6 × 0.127 = 2(n − 1)/n · S/(C·bw) + 2(n − 1)·2 ms = 0.75 + 0.012 = 0.762 s.
  const double hand = 2.0 * 3 / 4 * kBytes / (2 * kRail) + 2.0 * 3 * kSameRail;
  EXPECT_NEAR(hand, 0.762, 1e-12);
  std::vector<int> group{0, 1, 2, 3};
  std::vector<double> done(4, 0);
  double analytic = 0;
  std::map<std::string, double> bytes_on;  // by link
  on_platform(kTwoNics, {"gpu0", "gpu1", "gpu2", "gpu3"}, true, [&](int gpu, Network& network, Transfers& transfers) {
    ring(transfers, group, gpu);
    done[gpu] = sg4::Engine::get_clock();
    if (gpu != 0) return;
    analytic = ring_allreduce_seconds(network, group, kBytes);
    sg4::this_actor::sleep_for(1);  // every flow accounted
    for (const LinkUsage& usage : network.links())  // every link of the platform: those flows crossed
      if (usage.flows > 0) bytes_on[usage.link->get_name()] = usage.bytes;
  });
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_NEAR(done[gpu], hand, 1e-9 * hand) << "gpu " << gpu;
  // (3) The α-β formula agrees: on both rings bw_c = 1 GB/s, L_c = 2 ms.
  EXPECT_NEAR(analytic, hand, 1e-9 * hand);
  // Each InfiniBand port, each way, carried one channel: 6 × 0.125 GB; nothing crossed the spine.
  for (const char* link : {"node0-nic0-ib_UP", "node0-nic0-ib_DOWN", "node0-nic1-ib_UP", "node0-nic1-ib_DOWN",
                           "node1-nic0-ib_UP", "node1-nic0-ib_DOWN", "node1-nic1-ib_UP", "node1-nic1-ib_DOWN"})
    EXPECT_EQ(bytes_on[link], 0.75e9) << link;
  EXPECT_EQ(bytes_on["gpu0-nvlink_UP"], 0.75e9);  // gpu0 → gpu1 on ring 1
  EXPECT_EQ(bytes_on["gpu1-nvlink_UP"], 0.75e9);  // gpu1 → gpu0 on ring 0
  EXPECT_FALSE(bytes_on.contains("leaf-rail0-up_UP") || bytes_on.contains("leaf-rail0-up_DOWN"));
}

TEST(Multirail, ADataParallelPairKeepsOneRail) {
  // (2) One GPU on each node (gpu0, gpu2): one channel, the single ring on rail 0, as without rails:
  // 2(n − 1) = 2 steps of S/n = 0.5 GB, each 2 ms + 0.5 s: 1.004 s. No GPU outside the group carries
  // anything: NVLink and rail 1 stay idle.
  const double hand = 2.0 * 1 / 2 * kBytes / kRail + 2.0 * 1 * kSameRail;
  EXPECT_NEAR(hand, 1.004, 1e-12);
  std::vector<double> done(2, 0);
  double analytic = 0;
  std::map<std::string, double> bytes_on;
  on_platform(kTwoNics, {"gpu0", "gpu2"}, true, [&](int gpu, Network& network, Transfers& transfers) {
    ring(transfers, {0, 1}, gpu);
    done[gpu] = sg4::Engine::get_clock();
    if (gpu != 0) return;
    analytic = ring_allreduce_seconds(network, {0, 1}, kBytes);
    sg4::this_actor::sleep_for(1);
    for (const LinkUsage& usage : network.links())  // every link of the platform: those flows crossed
      if (usage.flows > 0) bytes_on[usage.link->get_name()] = usage.bytes;
  });
  for (int gpu = 0; gpu < 2; ++gpu) EXPECT_NEAR(done[gpu], hand, 1e-9 * hand) << "gpu " << gpu;
  EXPECT_NEAR(analytic, hand, 1e-9 * hand);  // (3)
  EXPECT_EQ(bytes_on["node0-nic0-ib_UP"], 1e9);
  EXPECT_EQ(bytes_on["node0-nic0-ib_DOWN"], 1e9);
  for (const auto& [link, bytes] : bytes_on)
    EXPECT_TRUE(link.find("nvlink") == std::string::npos && link.find("nic1") == std::string::npos) << link;
}

TEST(Multirail, ADataParallelPairWithoutRailsKeepsOnePath) {
  // The same pair without the rails: one ring on rail 0, 2 × (2 ms + 0.5 s).
  const auto [done, analytic] = run_ring(kTwoNics, {"gpu0", "gpu2"}, false);
  for (double t : done) EXPECT_NEAR(t, 1.004, 1e-9);
  EXPECT_NEAR(analytic, 1.004, 1e-9);
}

TEST(Multirail, TensorParallelFourAcrossTwoNodesWithoutRails) {
  // One ring, one path per hop: gpu1 → gpu2 and gpu3 → gpu0 both go from rail 1 to rail 0 through
  // the spine (4 ms), sharing its two uplinks: 0.5 GB/s each. 6 × (4 ms + 0.25 GB / 0.5 GB/s) =
  // 3.024 s; the α-β formula, blind to that sharing, says 6 × (4 ms + 0.25 s) = 1.524 s.
  const auto [done, analytic] = run_ring(kTwoNics, {"gpu0", "gpu1", "gpu2", "gpu3"}, false);
  for (double t : done) EXPECT_NEAR(t, 6 * (kCrossRail + 0.25e9 / (kRail / 2)), 1e-9 * 3.024);
  EXPECT_NEAR(analytic, 2.0 * 3 / 4 * kBytes / kRail + 2.0 * 3 * kCrossRail, 1e-9 * 1.524);
}

TEST(Multirail, TwoDataParallelGroupsTakeTheirOwnRails) {
  // (4) gpu0–gpu2 and gpu1–gpu3 at once, one channel each, on its members' own rail: nothing shared,
  // so each takes 1.004 s, as alone, and the α-β formula says so too.
  std::vector<double> done(4, 0), analytic(4, 0);
  std::map<std::string, double> bytes_on;
  on_platform(kTwoNics, {"gpu0", "gpu1", "gpu2", "gpu3"}, true, [&](int gpu, Network& network, Transfers& transfers) {
    const std::vector<int> group = gpu % 2 == 0 ? std::vector<int>{0, 2} : std::vector<int>{1, 3};
    ring(transfers, group, gpu / 2);
    done[gpu] = sg4::Engine::get_clock();
    analytic[gpu] = ring_allreduce_seconds(network, group, kBytes);
    if (gpu != 0) return;
    sg4::this_actor::sleep_for(1);
    for (const LinkUsage& usage : network.links())  // every link of the platform: those flows crossed
      if (usage.flows > 0) bytes_on[usage.link->get_name()] = usage.bytes;
  });
  for (int gpu = 0; gpu < 4; ++gpu) {
    EXPECT_NEAR(done[gpu], 1.004, 1e-9) << "gpu " << gpu;
    EXPECT_NEAR(analytic[gpu], 1.004, 1e-9) << "gpu " << gpu;
  }
  EXPECT_EQ(bytes_on["node0-nic0-ib_UP"], 1e9);  // gpu0 → gpu2 only
  EXPECT_EQ(bytes_on["node0-nic1-ib_UP"], 1e9);  // gpu1 → gpu3 only
}

TEST(Multirail, OneNicPerNodeGivesTheSingleRing) {
  // One NIC per node: no rails, the ring of today. DP pair gpu0–gpu2: 2 × (2 ms + 0.5 s).
  const auto [done, analytic] = run_ring(kOneNic, {"gpu0", "gpu2"}, true);
  for (double t : done) EXPECT_NEAR(t, 1.004, 1e-9);
  EXPECT_NEAR(analytic, 1.004, 1e-9);
}

TEST(Multirail, OneNicPerNodeGivesTheSingleRingOfFour) {
  // TP 4 across the two nodes: one channel (both members of a node share its NIC), in the group's
  // order: gpu1 → gpu2 and gpu3 → gpu0 cross the two NICs in opposite directions, 6 × (2 ms + 0.25 s)
  // = 1.512 s (the two NVLink hops take 1 ms + 2.5 ms).
  const auto [done, analytic] = run_ring(kOneNic, {"gpu0", "gpu1", "gpu2", "gpu3"}, true);
  for (double t : done) EXPECT_NEAR(t, 1.512, 1e-9);
  EXPECT_NEAR(analytic, 1.512, 1e-9);
}

TEST(Multirail, TheExecutorRunsDataParallelRingsOnTheirOwnRails) {
  // A one-stage job, TP 2 within each node and DP 2 across them: the DP rings gpu0–gpu2 and
  // gpu1–gpu3 after the backward (1 GB each) each keep to their own rail, as above: each GPU waits
  // 1.004 s for its all-reduce after 3 s of compute, and no DP byte goes over NVLink.
  SimulationInput input = test_support::explicit_job("rails-2node-2nic.xml", test_support::star_gpus(4, 2), "gpipe",
                                                     {1, 1, 0}, {2, 1, 2}, ActionTimes{1, 2, 1, std::nullopt}, 0);
  StageWork work = input.costs.stage(0);
  work.gradient_bytes = 1e9;
  input.costs = JobCosts({work});
  const SimulationResult result = simulate(input);
  for (const GpuReport& gpu : result.gpus) {
    EXPECT_NEAR(gpu.account.busy, 3, 1e-9) << gpu.host;
    EXPECT_NEAR(gpu.account.dp_exposed, 1.004, 1e-9) << gpu.host;
  }
  std::map<std::string, double> bytes_on;
  for (const LinkReport& link : result.links) bytes_on[link.name] = link.bytes;
  EXPECT_EQ(bytes_on["node0-nic0-ib_UP"], 1e9);
  EXPECT_EQ(bytes_on["node0-nic1-ib_UP"], 1e9);
  // Every link of the platform is listed, NVLink ones with nothing on them.
  EXPECT_TRUE(bytes_on.contains("gpu0-nvlink_UP"));
  for (const auto& [link, bytes] : bytes_on) {
    if (link.find("nvlink") != std::string::npos) {
      EXPECT_EQ(bytes, 0) << link;
    }
  }
}

TEST(Multirail, TheRunChecksTheRoutesRailsMayAskFor) {
  // TP 4 across the two nodes, two members on each: both nodes' rails may be looked for (each GPU to
  // the other GPU of its node and to the two of the other node) and the rings per rail may hop from
  // any member to any member of its node or the other: the 12 pairs. DP 2 rings with one member per
  // node, or a job within one node, keep one ring: none.
  SimulationInput input = test_support::explicit_job("rails-2node-2nic.xml", test_support::star_gpus(4, 2), "gpipe",
                                                     {1, 1, 0}, {2, 1, 2}, ActionTimes{1, 2, 1, std::nullopt}, 0);
  StageWork work = input.costs.stage(0);
  work.gradient_bytes = 1e9;
  work.tp_allreduces_forward = 1;
  work.tp_allreduce_bytes = 1e6;
  input.costs = JobCosts({work});
  const auto pairs = [&](const ParallelSizes& sizes) {
    input.placement = Placement(sizes, "tp-dp-pp", input.platform_gpus, /*allow_tp_across_nodes=*/true);
    std::set<std::pair<int, int>> routes;
    for (const NeededRoute& route : rail_routes(input)) routes.emplace(route.src_gpu, route.dst_gpu);
    return routes;
  };
  EXPECT_EQ(pairs({4, 1, 1}),
            (std::set<std::pair<int, int>>{
                {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 2}, {1, 3}, {2, 3}, {2, 0}, {2, 1}, {3, 2}, {3, 0}, {3, 1}}));
  EXPECT_TRUE(pairs({2, 1, 2}).empty());
  EXPECT_TRUE(pairs({2, 1, 1}).empty());
}

}  // namespace
}  // namespace pipegrid::sim
