// The MoE all-to-all's flows between nodes, DeepEP's (--ep-flows deepep) and one per pair
// (pairwise), against hand computations on tests/data/platforms/rails-2node-2nic.xml: gpu0, gpu1 on
// node 0 and gpu2, gpu3 on node 1; within a node 1 ms and 100 GB/s from GPU to GPU (NVLink); each
// GPU its own NIC, the first of each node on rail 0, the second on rail 1: 2 ms and 1 GB/s between
// GPUs of one rail, 4 ms and 1 GB/s between rails (through the spine, 1 GB/s uplinks). One stage,
// four replicas that form one expert-parallel group (one expert per GPU), T = 1000 tokens; only the
// forward dispatch carries bytes (1 MB per token-expert assignment), the three other all-to-alls of
// F0, B0 are empty and cost their longest flow's latency. Tolerance 1e-9 s.
//
// SimGrid (CM02) gives a flow no bandwidth during its latency: a flow of latency L and B bytes alone
// on its route ends at L + B / bandwidth. Flows sharing a link get shares in inverse proportion to
// their routes' latencies (CM02's sharing penalty; the platform leaves network/weight-S alone): a
// rail flow (2 ms) 2/3 of a NIC shared with a cross-rail one (4 ms), which gets 1/3.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "schedules/schedule_csv.h"
#include "sim/network/expert_flows.h"
#include "sim/exec/needed_routes.h"

namespace pipegrid::sim {
namespace {

constexpr double kTokens = 1000;
constexpr double kSameRail = 2e-3, kCrossRail = 4e-3;  // latencies (the platform's NVLink: 1e-3)

SimulationInput rails_job(EpFlows flows, std::vector<double> shares, int top_k = 1, int max_nodes = 0) {
  std::istringstream csv("0F0,0B0\n");
  StageWork stage;
  stage.moe.moe_layers = 1;
  stage.moe.tokens = kTokens;
  stage.moe.dispatch_bytes = 1e6;
  ExecOptions options;
  options.ep_flows = flows;
  return test_support::job_on(test_support::kPlatforms + "/rails-2node-2nic.xml", test_support::star_gpus(4, 2), read_schedule_csv(csv, "test.csv", CsvPlacement::Inferred).schedule, {1, 1, 4}, JobCosts({stage}, 0, ExpertRouting{4, top_k, max_nodes, std::move(shares)}), options);
}

const LinkReport& link(const SimulationResult& result, const std::string& name) {
  for (const LinkReport& l : result.links)
    if (l.name == name) return l;
  throw std::runtime_error("no link " + name);
}

// Flows each GPU started: over its NVLink port, over its PCIe to its NIC (InfiniBand).
std::uint64_t nvlink_flows(const SimulationResult& r) {
  std::uint64_t n = 0;
  for (int g = 0; g < 4; ++g) n += link(r, "gpu" + std::to_string(g) + "-nvlink_UP").flows;
  return n;
}
std::uint64_t infiniband_flows(const SimulationResult& r) {
  std::uint64_t n = 0;
  for (int g = 0; g < 4; ++g) n += link(r, "gpu" + std::to_string(g) + "-pcie_UP").flows;
  return n;
}

const std::vector<double> kUniform = {0.25, 0.25, 0.25, 0.25};

TEST(DeepEpFlows, UniformCrossesInfiniBandOncePerNode) {
  // Each GPU sends its same-rail peer on the other node the 2 × 250 assignments (0.5 GB) for both of
  // that node's GPUs: one flow per NIC and direction, 2 ms + 0.5 s. NVLink: its own 0.25 GB for its
  // neighbour and the 0.25 GB it forwards from its rail peer, one flow of 0.5 GB, 1 ms + 5 ms. The
  // empty all-to-alls: the InfiniBand flows' 2 ms.
  const SimulationResult r = simulate(rails_job(EpFlows::DeepEp, kUniform));
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, kSameRail + 0.5 + 3 * kSameRail, 1e-9);
  // Per all-to-all each GPU starts 1 InfiniBand and 1 NVLink flow: 8, ×4 all-to-alls.
  EXPECT_EQ(infiniband_flows(r), 16u);
  EXPECT_EQ(nvlink_flows(r), 16u);
  EXPECT_NEAR(link(r, "gpu0-pcie_UP").bytes, 0.5e9, 1);
  EXPECT_NEAR(link(r, "gpu0-nvlink_UP").bytes, 0.5e9, 1);
  EXPECT_EQ(link(r, "leaf-rail0-up_UP").flows, 0u);  // every InfiniBand flow stays on its rail
}

TEST(PairwiseFlows, UniformSharesEachNicAndTheSpine) {
  // Each GPU sends 0.25 GB to each of the 3 others. Its NIC carries two: to its rail peer (2 ms) and
  // across rails (4 ms); each spine uplink carries two cross-rail flows. From 2 ms the rail flows run
  // alone at 1 GB/s (2 MB), from 4 ms at 2/3 GB/s against the cross-rail ones' 1/3: the rail flows'
  // 248 MB end at 4 ms + 0.372 s, when the cross-rail ones have 250 − 2 − 124 = 126 MB left, two per
  // uplink at 0.5 GB/s: 0.252 s more, 0.628 s in all. Empty all-to-alls: 4 ms.
  const SimulationResult r = simulate(rails_job(EpFlows::Pairwise, kUniform));
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 0.004 + 0.372 + 0.252 + 3 * kCrossRail, 1e-9);
  // Per all-to-all each GPU starts 2 InfiniBand flows and 1 NVLink one: 12, ×4 all-to-alls.
  EXPECT_EQ(infiniband_flows(r), 32u);
  EXPECT_EQ(nvlink_flows(r), 16u);
  EXPECT_NEAR(link(r, "gpu0-pcie_UP").bytes, 0.5e9, 1);
  EXPECT_NEAR(link(r, "gpu0-nvlink_UP").bytes, 0.25e9, 1);
  EXPECT_EQ(link(r, "leaf-rail0-up_UP").flows, 8u);  // 0 → 3 and 2 → 1, ×4
}

const std::vector<double> kOneHot = {1, 0, 0, 0};

TEST(DeepEpFlows, AHotExpertReceivesOverBothRails) {
  // Every token goes to gpu0's expert: gpu2 sends it 1 GB over rail 0 (2 ms + 1 s), gpu3 sends 1 GB to
  // gpu1 over rail 1, which forwards it with its own 1 GB over NVLink: 2 GB, 1 ms + 20 ms. The hot
  // GPU's load enters node 0 by both NICs at once.
  const SimulationResult r = simulate(rails_job(EpFlows::DeepEp, kOneHot));
  EXPECT_NEAR(r.makespan, kSameRail + 1 + 3 * kSameRail, 1e-9);
  EXPECT_NEAR(link(r, "node0-nic1-ib_DOWN").bytes, 1e9, 1);
  EXPECT_NEAR(link(r, "gpu1-nvlink_UP").bytes, 2e9, 1);
}

TEST(PairwiseFlows, AHotExpertReceivesThroughItsOwnNic) {
  // gpu2 (rail, 2 ms) and gpu3 (across rails, 4 ms) each send gpu0 1 GB through gpu0's NIC: gpu2's
  // alone from 2 to 4 ms (2 MB), then at 2/3 GB/s against gpu3's 1/3 until gpu2's ends at 1.501 s,
  // gpu3's last 501 MB alone: the NIC busy with 2 GB from 2 ms, 2.002 s, twice DeepEP's.
  const SimulationResult r = simulate(rails_job(EpFlows::Pairwise, kOneHot));
  EXPECT_NEAR(r.makespan, 2.002 + 3 * kCrossRail, 1e-9);
  EXPECT_EQ(link(r, "node0-nic1-ib_DOWN").bytes, 0);
  EXPECT_NEAR(link(r, "gpu1-nvlink_UP").bytes, 1e9, 1);
}

TEST(DeepEpFlows, NodeLimitedRoutingCutsInfiniBandOnly) {
  // Top 2, at most 1 node per token: each pair's 500 assignments are 0.5 GB, and InfiniBand carries
  // M/k = 1/2 of the node's 1 GB: 0.5 GB, 2 ms + 0.5 s. NVLink forwards the copies in full: 1 GB.
  const SimulationResult r = simulate(rails_job(EpFlows::DeepEp, kUniform, 2, 1));
  EXPECT_NEAR(r.makespan, kSameRail + 0.5 + 3 * kSameRail, 1e-9);
  EXPECT_NEAR(link(r, "gpu0-pcie_UP").bytes, 0.5e9, 1);
  EXPECT_NEAR(link(r, "gpu0-nvlink_UP").bytes, 1e9, 1);
}

TEST(DeepEpFlows, NeedOnlyRailAndNodeRoutes) {
  // Pairwise needs all 12 ordered pairs; DeepEP every pair within a node and each GPU's rail peer: 8.
  const SimulationInput deepep = rails_job(EpFlows::DeepEp, kUniform), pairwise = rails_job(EpFlows::Pairwise, kUniform);
  EXPECT_EQ(needed_routes(pairwise).size(), 12u);
  std::set<std::pair<int, int>> routes;
  for (const NeededRoute& r : needed_routes(deepep)) routes.insert({r.src_gpu, r.dst_gpu});
  EXPECT_EQ(routes, (std::set<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}, {0, 2}, {2, 0}, {1, 3}, {3, 1}}));
}

// The plan alone (expert_flows.h), without SimGrid.
std::vector<std::tuple<int, int, double, bool>> plan(const std::vector<MemberPlace>& places, const std::vector<double>& shares,
                                                     double factor, bool to_experts) {
  std::vector<std::tuple<int, int, double, bool>> flows;
  for (const ExpertFlow& f : deepep_flows(places, shares, factor, to_experts))
    flows.emplace_back(f.src, f.dst, f.share, f.internode);
  return flows;
}

TEST(DeepEpPlan, ANodeWithoutTheRailPeerForwardsByPosition) {
  // Members 0, 1 on node 0 (GPUs 0, 1), member 2 on node 1 (GPU 0). Member 1 has no rail peer on
  // node 1: member 2, at its position (1) modulo node 1's one member, takes its tokens. Dispatch,
  // uniform thirds: member 2 sends node 0's two thirds to its rail peer, member 0, which forwards
  // member 1's third with its own.
  const std::vector<MemberPlace> places = {{0, 0}, {0, 1}, {1, 0}};
  EXPECT_EQ(deepep_forwarder(places, 1, 1), 2);
  EXPECT_EQ(deepep_forwarder(places, 2, 0), 0);
  const double third = 1.0 / 3;
  using F = std::tuple<int, int, double, bool>;
  EXPECT_EQ(plan(places, {third, third, third}, 1, true),
            (std::vector<F>{{0, 1, 2 * third, false}, {0, 2, third, true}, {1, 0, third, false}, {1, 2, third, true},
                            {2, 0, 2 * third, true}}));
  // Combine reverses it: member 1's results for member 2's tokens go to member 0 over NVLink, which
  // sends them back reduced with its own; member 2, member 1's forwarder, sends it its results itself.
  EXPECT_EQ(plan(places, {third, third, third}, 1, false),
            (std::vector<F>{{0, 1, third, false}, {0, 2, 2 * third, true}, {1, 0, 2 * third, false}, {2, 0, third, true},
                            {2, 1, third, true}}));
}

TEST(DeepEpPlan, OneNodeIsPairwise) {
  const std::vector<MemberPlace> places = {{3, 0}, {3, 1}, {3, 2}};
  const std::vector<double> shares = {0.5, 0.3, 0.2};
  using F = std::tuple<int, int, double, bool>;
  EXPECT_EQ(plan(places, shares, 0.5, true), (std::vector<F>{{0, 1, 0.3, false}, {0, 2, 0.2, false}, {1, 0, 0.5, false},
                                                             {1, 2, 0.2, false}, {2, 0, 0.5, false}, {2, 1, 0.3, false}}));
}

TEST(DeepEpPlan, DeepSeekV3GroupHasFourteenFlowsPerMember) {
  // EP 64 over 8 nodes of 8: 7 InfiniBand flows (one per other node) and 7 NVLink ones per member,
  // 896 against pairwise's 64 · 63 = 4032. Uniform, M/k = 4/8: an InfiniBand flow carries
  // ½ · 8/64 of T·k, an NVLink one 1/64 own + 7/64 forwarded.
  std::vector<MemberPlace> places;
  for (int g = 0; g < 64; ++g) places.push_back({g / 8, g % 8});
  const std::vector<ExpertFlow> flows = deepep_flows(places, std::vector<double>(64, 1.0 / 64), 0.5, true);
  ASSERT_EQ(flows.size(), 896u);
  for (const ExpertFlow& f : flows) {
    EXPECT_EQ(f.internode, places[f.src].node != places[f.dst].node);
    if (f.internode) {
      EXPECT_EQ(places[f.src].local, places[f.dst].local);
      EXPECT_NEAR(f.share, 0.5 * 8 / 64, 1e-15);
    } else {
      EXPECT_NEAR(f.share, 8.0 / 64, 1e-15);
    }
  }
}

}  // namespace
}  // namespace pipegrid::sim
