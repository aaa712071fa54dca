// Mixture-of-experts all-to-alls and their overlap, against hand computations on tests/data/platforms/
// star-4gpu.xml: four GPUs (1 Tflop/s), each with a 1 GB/s full-duplex port of 1 ms to one switch
// (2 ms between two GPUs). One pipeline stage, four data-parallel replicas that form one
// expert-parallel group of 4: one expert per GPU, top-1, T = 1000 tokens per micro-batch.
#include <gtest/gtest.h>

#include <sstream>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "schedules/schedule_csv.h"

namespace pipegrid::sim {
namespace {

using test_support::star_gpus;

constexpr double kLatency = 2e-3;
constexpr double kBandwidth = 1e9;
constexpr double kTokens = 1000;

// A one-rank job of the one-line program (CSV notation) on an MoE stage of `work`.
SimulationInput moe_job(const std::string& program, MoeWork work, std::vector<double> shares,
                        double comm_sm_fraction = 0) {
  std::istringstream csv(program + "\n");
  work.moe_layers = 1;
  work.tokens = kTokens;
  StageWork stage;
  stage.moe = work;
  ExecOptions options;
  options.comm_sm_fraction = comm_sm_fraction;
  return test_support::job_on(test_support::kPlatforms + "/star-4gpu.xml", star_gpus(4, 4), read_schedule_csv(csv, "test.csv", CsvPlacement::Inferred).schedule, {1, 1, 4}, JobCosts({stage}, 0, ExpertRouting{4, 1, 0, std::move(shares)}), options);
}

// Only the forward dispatch carries bytes (1 MB per token-expert assignment); every other all-to-all
// is empty and costs its 2 ms latency. Compute is free.
MoeWork dispatch_only() {
  MoeWork work;
  work.dispatch_bytes = 1e6;
  return work;
}

TEST(ExpertAllToAll, UniformRoutingTakesThePortsTime) {
  // Each GPU sends T·k·¼ = 250 assignments × 1 MB = 0.25 GB to each of the 3 others: 0.75 GB out of
  // its port and 0.75 GB into it, 3 flows sharing each port: 0.75 s + 2 ms. Then the combine, the
  // backward's combine-gradient and dispatch-gradient: 2 ms each.
  const SimulationResult result = simulate(moe_job("0F0,0B0", dispatch_only(), {0.25, 0.25, 0.25, 0.25}));
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
  EXPECT_NEAR(result.makespan, 3 * 0.25e9 / kBandwidth + kLatency + 3 * kLatency, 1e-9);
  for (const GpuReport& gpu : result.gpus) EXPECT_NEAR(gpu.account.a2a_exposed, result.makespan, 1e-9);
}

TEST(ExpertAllToAll, OneHotExpertTakesItsPortsTime) {
  // Every token goes to GPU 0's expert: the 3 others each send it T·k·1 = 1000 × 1 MB = 1 GB, and
  // GPU 0's port takes 3 GB: 3 s + 2 ms, longer than uniform by (3 − 0.75) GB over that one port.
  const SimulationResult result = simulate(moe_job("0F0,0B0", dispatch_only(), {1, 0, 0, 0}));
  EXPECT_NEAR(result.makespan, 3e9 / kBandwidth + kLatency + 3 * kLatency, 1e-9);
}

// An overlapped pair: micro-batch 0's forward alone, then (F1;B0), then B1. Per chunk: attention
// 0.4 TFLOP forward (0.4 s at 1 Tflop/s), experts 0.2 TFLOP per 1000 assignments forward, I and W
// the same; SMs for communication 20 %, so the pair computes 1 / 0.8 = 1.25 × slower.
MoeWork with_compute(double dispatch_bytes) {
  MoeWork work;
  work.non_expert[0] = work.non_expert[1] = work.non_expert[2] = 0.4e12;
  work.routed[0] = work.routed[1] = work.routed[2] = 0.2e12 / kTokens;
  work.dispatch_bytes = work.combine_bytes = dispatch_bytes;
  return work;
}

constexpr double kAttention = 0.4, kExperts = 0.2;  // seconds, forward; I and W each the same

double pair_compute(double slowdown) {
  // F: attention + experts; B: experts (I + W) + attention (I + W).
  return slowdown * (kAttention + kExperts + 2 * kExperts + 2 * kAttention);
}

TEST(ExpertOverlap, AShortAllToAllHidesUnderThePairsCompute) {
  // 1 kB per assignment: 750 kB per port, 0.75 ms + 2 ms per all-to-all, shorter than every slot's
  // compute. Alone, F0 and B1 wait for theirs (4 all-to-alls each); the pair hides its 4.
  const double a2a = 3 * 250 * 1e3 / kBandwidth + kLatency;
  const SimulationResult result = simulate(moe_job("0F0,(0F1;0B0),0B1", with_compute(1e3), {0.25, 0.25, 0.25, 0.25}, 0.2));
  const double alone_f = kAttention + kExperts + 2 * a2a, alone_b = 2 * (kExperts + kAttention) + 2 * a2a;
  EXPECT_NEAR(result.makespan, alone_f + pair_compute(1 / 0.8) + alone_b, 1e-9);
  for (const GpuReport& gpu : result.gpus) {
    EXPECT_NEAR(gpu.account.a2a_hidden, 4 * a2a, 1e-9);   // the pair's four
    EXPECT_NEAR(gpu.account.a2a_exposed, 4 * a2a, 1e-9);  // two in F0 alone, two in B1 alone
  }
}

TEST(ExpertOverlap, ALongAllToAllShowsWhereItOutlastsItsSlot) {
  // 1 MB per assignment: each all-to-all takes 0.75 s + 2 ms. The pair's slots compute, slowed by
  // 1.25: F attention 0.5 s, B experts 0.5 s, F experts 0.25 s, B attention 1 s; each slot lasts
  // the longer of its compute and its all-to-all, and only the excess shows.
  const double a2a = 3 * 250 * 1e6 / kBandwidth + kLatency;
  const double slots[] = {1.25 * kAttention, 1.25 * 2 * kExperts, 1.25 * kExperts, 1.25 * 2 * kAttention};
  double pair = 0, excess = 0;
  for (double compute : slots) {
    pair += std::max(compute, a2a);
    excess += std::max(0.0, a2a - compute);
  }
  const SimulationResult result = simulate(moe_job("0F0,(0F1;0B0),0B1", with_compute(1e6), {0.25, 0.25, 0.25, 0.25}, 0.2));
  const double alone = (kAttention + kExperts) + 2 * (kExperts + kAttention) + 4 * a2a;
  EXPECT_NEAR(result.makespan, alone + pair, 1e-9);
  for (const GpuReport& gpu : result.gpus) {
    EXPECT_NEAR(gpu.account.a2a_exposed, 4 * a2a + excess, 1e-9);
    EXPECT_NEAR(gpu.account.a2a_hidden, 4 * a2a - excess, 1e-9);
  }
}

}  // namespace
}  // namespace pipegrid::sim
