// Placement against hand tables of Megatron-Core's rule (parallel_state.py, RankGenerator): with the
// order tp-cp-ep-dp-pp, rank = t + T·(c + C·(d + D·r)); the expert layers lay the same ranks out
// as etp-ep-edp-pp. Every expected value below is written out by hand from that rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "sim/exec/group_landing.h"
#include "sim/exec/placement.h"

namespace pipegrid::sim {
namespace {

std::vector<PlatformGpu> gpus(int n, int per_node) {
  std::vector<PlatformGpu> out;
  for (int g = 0; g < n; ++g) out.push_back({"gpu" + std::to_string(g), g / per_node});
  return out;
}

ParallelSizes sizes(int tp, int cp, int dp, int pp, int ep = 1, int etp = 1) {
  ParallelSizes s{tp, pp, dp};
  s.cp = cp;
  s.ep = ep;
  s.etp = etp;
  return s;
}

// tp 2 × cp 2 × dp 2 × pp 2 = 16 ranks: rank = t + 2c + 4d + 8r.
TEST(Placement, MegatronOrderCoordinatesByHand) {
  const Placement p(sizes(2, 2, 2, 2), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  // {tp, dp, pp, cp} of ranks 0-15.
  const GpuCoordinates expected[16] = {
      {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 1, 0, 1}, {1, 1, 0, 1},
      {0, 0, 1, 0}, {1, 0, 1, 0}, {0, 0, 1, 1}, {1, 0, 1, 1}, {0, 1, 1, 0}, {1, 1, 1, 0}, {0, 1, 1, 1}, {1, 1, 1, 1}};
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(p.coordinates(k), expected[k]) << "rank " << k;
    EXPECT_EQ(p.gpu(expected[k]), k);
  }
}

TEST(Placement, MegatronGroupsByHand) {
  const Placement p(sizes(2, 2, 2, 2), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  EXPECT_EQ(p.group(5, "tp"), (std::vector<int>{4, 5}));
  EXPECT_EQ(p.group(5, "cp"), (std::vector<int>{5, 7}));
  EXPECT_EQ(p.group(5, "dp"), (std::vector<int>{1, 5}));
  EXPECT_EQ(p.group(5, "pp"), (std::vector<int>{5, 13}));
  EXPECT_EQ(p.group(10, "cp"), (std::vector<int>{8, 10}));
  EXPECT_EQ(p.rank_in(7, "cp"), 1);
  EXPECT_EQ(p.rank_in(13, "pp"), 1);
}

// The same 16 ranks with ep 4, etp 1: the expert layers' etp(1)-ep(4)-edp(2)-pp(2), ep = k mod 4,
// edp = ⌊k/4⌋ mod 2.
TEST(Placement, GradientGroupIsDataParallelWithContextParallelByHand) {
  // Megatron-Core's get_data_parallel_group(with_context_parallel=True): the ranks sharing t and r,
  // c and d free. Rank 5 = (t 1, c 0, d 1, r 0): 1, 3, 5, 7; rank 10 = (t 0, c 1, d 0, r 1): 8, 10, 12, 14.
  const Placement p(sizes(2, 2, 2, 2), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  EXPECT_EQ(p.gradient_group(5), (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(p.gradient_group(10), (std::vector<int>{8, 10, 12, 14}));
  EXPECT_EQ(p.rank_in_gradient_group(5), 2);
  EXPECT_EQ(p.replica_of(5), 2);  // d 1 · cp 2 + c 0
  EXPECT_EQ(p.replica_of(10), 1);
  // Without context parallelism it is the data-parallel group.
  const Placement plain(sizes(2, 1, 2, 2), "tp-cp-ep-dp-pp", gpus(8, 8), false);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(plain.gradient_group(k), plain.group(k, "dp"));
}

TEST(Placement, ExpertGroupsByHand) {
  const Placement p(sizes(2, 2, 2, 2, 4, 1), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  EXPECT_EQ(p.sizes().expert_dp(), 2);
  EXPECT_EQ(p.group(5, "ep"), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(p.rank_in(5, "ep"), 1);
  EXPECT_EQ(p.group(5, "edp"), (std::vector<int>{1, 5}));
  EXPECT_EQ(p.group(5, "etp"), (std::vector<int>{5}));
  EXPECT_EQ(p.group(14, "ep"), (std::vector<int>{12, 13, 14, 15}));
}

// etp 2, ep 2: etp = k mod 2, ep = ⌊k/2⌋ mod 2, edp = ⌊k/4⌋ mod 2 (Megatron-Core's expert generator
// with tp → etp, cp → 1, dp → tp·cp·dp / (ep·etp) = 2).
TEST(Placement, ExpertTensorParallelGroupsByHand) {
  const Placement p(sizes(2, 2, 2, 2, 2, 2), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  EXPECT_EQ(p.group(5, "etp"), (std::vector<int>{4, 5}));
  EXPECT_EQ(p.group(5, "ep"), (std::vector<int>{5, 7}));
  EXPECT_EQ(p.rank_in(7, "ep"), 1);
  EXPECT_EQ(p.group(5, "edp"), (std::vector<int>{1, 5}));
  EXPECT_EQ(p.group(9, "edp"), (std::vector<int>{9, 13}));
}

// The three-name orders of earlier versions: cp goes after tp, ep before dp, so tp-dp-pp is
// Megatron-Core's order, GPU for GPU.
TEST(Placement, ThreeNameOrderIsMegatronOrder) {
  const Placement old_order(sizes(2, 2, 2, 2, 2, 1), "tp-dp-pp", gpus(16, 8), false);
  const Placement megatron(sizes(2, 2, 2, 2, 2, 1), "tp-cp-ep-dp-pp", gpus(16, 8), false);
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(old_order.coordinates(k), megatron.coordinates(k));
    for (const char* kind : {"tp", "cp", "dp", "pp", "ep", "etp", "edp"})
      EXPECT_EQ(old_order.group(k, kind), megatron.group(k, kind)) << kind << " of " << k;
  }
}

// What earlier versions ran for every order (with tp 1, as MoE needed): an expert-parallel group is
// ep consecutive data-parallel replicas of one stage, d = ep_rank + ep·(d / ep), and the expert
// gradients go round the replicas d ≡ d' (mod ep).
TEST(Placement, ExpertGroupsOfEveryThreeNameOrderAsBefore) {
  for (const char* order : {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"}) {
    const Placement p(sizes(1, 1, 8, 2, 4, 1), order, gpus(16, 8), true);
    for (int g = 0; g < 16; ++g) {
      const GpuCoordinates at = p.coordinates(g);
      std::vector<int> members, holders;
      for (int j = 0; j < 4; ++j) members.push_back(p.gpu({0, at.dp - at.dp % 4 + j, at.pp}));
      for (int d = at.dp % 4; d < 8; d += 4) holders.push_back(p.gpu({0, d, at.pp}));
      std::vector<int> ep = p.group(g, "ep"), edp = p.group(g, "edp");
      EXPECT_EQ(ep, members) << order << " GPU " << g;
      EXPECT_EQ(p.rank_in(g, "ep"), at.dp % 4);
      std::sort(holders.begin(), holders.end());
      EXPECT_EQ(edp, holders) << order << " GPU " << g;
    }
  }
}

// dp-tp-pp with tp 2, dp 2, pp 2: rank = d + 2t + 4r.
TEST(Placement, OtherOrderByHand) {
  const Placement p(sizes(2, 1, 2, 2), "dp-tp-pp", gpus(8, 8), false);
  EXPECT_EQ(p.coordinates(1), (GpuCoordinates{0, 1, 0}));
  EXPECT_EQ(p.coordinates(2), (GpuCoordinates{1, 0, 0}));
  EXPECT_EQ(p.coordinates(6), (GpuCoordinates{1, 0, 1}));
  EXPECT_EQ(p.group(0, "tp"), (std::vector<int>{0, 2}));
  EXPECT_EQ(p.group(3, "dp"), (std::vector<int>{2, 3}));
}

// Each broken rule is an InputError naming the flag.
TEST(Placement, RefusesBrokenRules) {
  const auto message = [](const ParallelSizes& s, const char* order) {
    try {
      Placement(s, order, gpus(16, 8), true);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(sizes(1, 1, 3, 2, 2, 1), "tp-dp-pp"),
            "--ep 2 --etp 1: ep·etp = 2 must divide tp·cp·dp = 3 (the GPUs of a stage, which the expert layers "
            "split into etp × ep × expert-data-parallel)");
  EXPECT_EQ(message(sizes(2, 2, 4, 2), "tp-cp-dp-pp"),
            "--tp 2 --pp 2 --dp 4 --cp 2: tp·cp·dp·pp = 32 GPUs, the platform has 16");
  EXPECT_EQ(message(sizes(1, 1, 2, 2), "tp-dp"),
            "--placement tp-dp: must order tp, dp and pp (and optionally cp and ep), fastest first, as in "
            "tp-cp-ep-dp-pp");
  EXPECT_EQ(message(sizes(1, 1, 2, 2), "tp-ep-ep-dp-pp"), "--placement tp-ep-ep-dp-pp: must name each dimension once");
  // tp-pp-dp, tp 2, etp 1: GPU 1 is pp rank ⌊1/2⌋ mod 2 = 0 densely and 1 mod 2 = 1 in the expert layers.
  EXPECT_EQ(message(sizes(2, 1, 2, 2, 1, 1), "tp-pp-dp"),
            "--placement tp-pp-dp: with --etp 1 and --tp 2 GPU 1 would be pipeline rank 1 in the expert layers and "
            "0 in the others; put pp after tp, cp, ep and dp");
}

// 16 GPUs, 8 to a node, tp 2 dp 4 pp 2: TP and DP groups stay in a node, PP groups cross it.
TEST(Placement, GroupLandings) {
  const std::vector<GroupLanding> landings =
      group_landings(Placement(sizes(2, 1, 4, 2), "tp-dp-pp", gpus(16, 8), false), gpus(16, 8), false);
  ASSERT_EQ(landings.size(), 4u);
  EXPECT_EQ(landings[0].kind, "tp");
  EXPECT_EQ(landings[0].groups, 8);
  EXPECT_EQ(landings[0].within_node, 8);
  EXPECT_EQ(landings[2].kind, "dp");
  EXPECT_EQ(landings[2].rank0, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(landings[2].within_node, 4);
  EXPECT_EQ(landings[3].kind, "pp");
  EXPECT_EQ(landings[3].rank0, (std::vector<int>{0, 8}));
  EXPECT_EQ(landings[3].within_node, 0);
}

}  // namespace
}  // namespace pipegrid::sim
