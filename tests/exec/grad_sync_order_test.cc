// The order of a GPU's step-end gradient collectives (--grad-sync-order), by hand on
// tests/data/platforms/star-4gpu.xml (GPU to GPU: 2 ms + bytes / 1 GB/s). 1F1B, p = 2, m = 2, d = 2,
// placement tp-dp-pp: gpu0 = (pp 0, dp 0), gpu1 = (pp 0, dp 1), gpu2 = (pp 1, dp 0), gpu3 = (pp 1,
// dp 1). F = 1, B = 2, no p2p bytes: rank 0's last op 0B1 ends at 9.004, rank 1's 1B1 at 7.002
// (grad_overlap_test.cc). Gradients after the step (--grad-overlap off): 1 GB per stage round the DP
// ring of the rank's two replicas, and tied embeddings of 0.2 GB between (pp 0, dp d) and (pp 1, dp d).
// A ring all-reduce of S over two GPUs is two steps of S/2: S / bw + 2 × 2 ms — DP 1.004 s,
// embeddings 0.204 s; a member arriving late finds its peer's first piece there and still pays both
// of its own steps, so the collective ends 2 × (S/2 / bw + 2 ms) after the later member entered.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "exec_support.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::set_gradients;
using test_support::star_gpus;

SimulationInput job(GradSyncOrder order) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 2, 0}, {1, 2, 2},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  set_gradients(input, 1e9);
  std::vector<StageWork> stages{input.costs.stage(0), input.costs.stage(1)};
  for (StageWork& stage : stages) stage.embedding_gradient_bytes = 0.2e9;
  input.costs = JobCosts(stages);
  input.options.grad_overlap = false;
  input.options.grad_sync_order = order;
  return input;
}

// One simulation per test: SimGrid runs one engine per process.

TEST(GradSyncOrder, MegatronReducesDataParallelThenTheEmbeddings) {
  // Rank 1: DP [7.002, 8.006], then enters the embeddings and waits for rank 0; rank 0: DP [9.004,
  // 10.008], embeddings [10.008, 10.212]. Every GPU ends at 10.212.
  const SimulationResult r = simulate(job(GradSyncOrder::Megatron));
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 10.212, 1e-9);
  for (int gpu : {2, 3}) EXPECT_NEAR(r.gpus[gpu].account.finish, 10.212, 1e-9) << gpu;
}

TEST(GradSyncOrder, EmbeddingsFirstEverywhereIsAnotherGlobalOrder) {
  // Embeddings: rank 1 enters at 7.002, rank 0 at 9.004: [9.004, 9.208]; then both DP rings at
  // once on disjoint ports, [9.208, 10.212]: Megatron's makespan, the two collectives swapped.
  const SimulationResult r = simulate(job(GradSyncOrder::EmbeddingFirst));
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 10.212, 1e-9);
  for (int gpu : {2, 3}) EXPECT_NEAR(r.gpus[gpu].account.finish, 10.212, 1e-9) << gpu;
}

TEST(GradSyncOrder, ByStageOrdersDifferButNoCycleForms) {
  // Rank 1 (last stage) DP first [7.002, 8.006], then the embeddings, which rank 0 (first stage)
  // enters first at 9.004: [9.004, 9.208]; rank 0's DP [9.208, 10.212]. Rank 1 is done at 9.208.
  const SimulationResult r = simulate(job(GradSyncOrder::ByStage));
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 10.212, 1e-9);
  for (int gpu : {2, 3}) EXPECT_NEAR(r.gpus[gpu].account.finish, 9.208, 1e-9) << gpu;
}

TEST(GradSyncOrder, CrossedOrdersDeadlockInACycleOfFourCollectives) {
  // Embeddings first where pp + dp is even (gpu0, gpu3), DP first elsewhere (gpu1, gpu2). gpu0 in
  // the embeddings waits for its partner gpu2, which is in rank 1's DP ring waiting for gpu3, which
  // is in the embeddings waiting for gpu1, which is in rank 0's DP ring waiting for gpu0. Each sent
  // its first piece on entering: the last, gpu1's 0.5 GB to gpu0 from 9.004, lands at 9.506 and
  // nothing moves after it.
  const SimulationResult r = simulate(job(GradSyncOrder::Crossed));
  ASSERT_TRUE(r.deadlock.has_value());
  EXPECT_EQ(r.deadlock->line,
            "deadlock at 9.506 s: gpu0 waits for gpu2 to enter the embedding all-reduce, which waits for gpu3 to "
            "enter the data-parallel all-reduce, which waits for gpu1 to enter the embedding all-reduce, which waits "
            "for gpu0 to enter the data-parallel all-reduce\n"
            "  gpu0 (tp 0, dp 0, pp 0) is blocked at embedding-allreduce\n"
            "  gpu2 (tp 0, dp 0, pp 1) is blocked at dp-allreduce\n"
            "  gpu3 (tp 0, dp 1, pp 1) is blocked at embedding-allreduce\n"
            "  gpu1 (tp 0, dp 1, pp 0) is blocked at dp-allreduce\n"
            "fix: ranks entered their collectives in different orders; issue the step's collectives in one global "
            "order on every rank (Megatron's finalize_model_grads: the data-parallel reduction, then the embedding "
            "all-reduce); here: --grad-sync-order megatron");
  const nlohmann::json& json = r.deadlock->file;
  EXPECT_EQ(json["engine"], "executor");
  EXPECT_EQ(json["open"], false);
  EXPECT_EQ(json["hint"]["shape"], "collective-order");
  EXPECT_EQ(json["chain"], r.deadlock->line.substr(21, r.deadlock->line.find('\n') - 21));
  ASSERT_EQ(json["cycle"].size(), 4u);
  const std::vector<std::string> gpus{"gpu0", "gpu2", "gpu3", "gpu1"};
  const std::vector<std::string> awaited{"embedding-allreduce", "dp-allreduce", "embedding-allreduce", "dp-allreduce"};
  // Each blocked when its last op ended: rank 0 at 9.004, rank 1 at 7.002.
  const std::vector<double> since{9.004, 7.002, 7.002, 9.004};
  for (std::size_t i = 0; i < 4; ++i) {
    const nlohmann::json& w = json["cycle"][i];
    EXPECT_EQ(w["gpu"], gpus[i]) << i;
    EXPECT_EQ(w["rank"], w["pp"]) << i;
    EXPECT_EQ(w["blocked_at"], awaited[i]) << i;
    EXPECT_NEAR(w["blocked_since"].get<double>(), since[i], 1e-9) << i;
    EXPECT_EQ(w["waits_for"]["gpu"], gpus[(i + 1) % 4]) << i;
    EXPECT_EQ(w["waits_for"]["action"], awaited[i]) << i;
    EXPECT_EQ(w["waits_for"]["what"], "collective") << i;
  }
  EXPECT_EQ(json["blocked"].size(), 4u);
  // Between pipeline ranks: 0 → 1 and 1 → 0 for the embeddings, each rank's DP ring to itself.
  EXPECT_EQ(json["wait_for"]["edges"],
            nlohmann::json::parse(R"([{"from": 0, "to": 0, "label": "dp-allreduce"},
                                      {"from": 0, "to": 1, "label": "embedding-allreduce"},
                                      {"from": 1, "to": 0, "label": "embedding-allreduce"},
                                      {"from": 1, "to": 1, "label": "dp-allreduce"}])"));
  // Between GPUs, the chain's four waits in GPU order: gpu0 for gpu2 in the embeddings, gpu1 for
  // gpu0 in rank 0's DP ring, gpu2 for gpu3 in rank 1's, gpu3 for gpu1 in the embeddings.
  EXPECT_EQ(json["wait_for"]["gpu_edges"],
            nlohmann::json::parse(R"([{"from": "gpu0", "to": "gpu2", "label": "embedding-allreduce"},
                                      {"from": "gpu1", "to": "gpu0", "label": "dp-allreduce"},
                                      {"from": "gpu2", "to": "gpu3", "label": "dp-allreduce"},
                                      {"from": "gpu3", "to": "gpu1", "label": "embedding-allreduce"}])"));
}

TEST(GradSyncOrder, WithOverlapTheBucketsAreIssuedByTheBackwardAndCrossedCompletes) {
  // Overlapped, each rank's DP ring starts at its last backward whatever the order (one bucket per
  // rank here, the bucket size left unset): rank 1's at 7.002, rank 0's at 9.004. gpu0 and gpu3 then
  // issue the embeddings before waiting for it, gpu1 and gpu2 after: every ring was entered by all
  // its members before anyone waits for it, so no wait closes a cycle and the step completes. (Its
  // time is not asserted: gpu0's embedding and DP pieces share its port.)
  SimulationInput input = job(GradSyncOrder::Crossed);
  input.options.grad_overlap = true;
  const SimulationResult r = simulate(input);
  EXPECT_FALSE(r.deadlock) << r.deadlock->line;
}

}  // namespace
}  // namespace pipegrid::sim
