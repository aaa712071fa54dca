// Mixture of experts with tensor and expert tensor parallelism as a user runs it: every collective of
// a step counted from trace.csv against a hand count of Megatron-Core's MoE layer (its
// MoEAlltoAllTokenDispatcher), the memory report's parameters, gradients and optimizer state by
// hand, --ep-comm off, and Grok-1's recipe layouts on a generated DGX H100 platform.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "command_runner.h"
#include "trace_counts.h"
#include "temp_files.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

// GPT with s = 64, b = 1, h = 64, a = 4 and 4 experts of 32 (top 2) in both layers; t = 2, p = 2,
// d = 2, ep 2, etp 2 (--tp's): 8 GPUs, one layer a stage, 1F1B over 4 micro-batches. GPU k =
// t + 2·(d + 2·r); the expert layers' ETP group of GPU 0 is {0, 1}, its EP group {0, 2}.
const std::string kRun = " simulate --platform " PIPEGRID_TEST_DATA
                         "/platforms/star-finite-16gpu.xml --tp 2 --pp 2 --dp 2 --microbatches 4 --layers 2"
                         " --hidden 64 --heads 4 --seq 64 --vocab 256 --schedule 1f1b --compute-efficiency 0.5"
                         " --dp-comm off --experts 4 --top-k 2 --expert-hidden 32 --ep 2 --sequence-parallel";

// (gpu, trace kind, bytes) → rows of trace.csv's comm track.
using Counts = test_support::CommCounts;

Counts comm_rows(const std::string& dir) {
  return test_support::comm_counts(dir, [](const std::string& kind) { return kind != "p2p"; });
}

// What every GPU runs per micro-batch, by hand. Each GPU routes its s/t = 32 tokens: 64 assignments,
// half to each EP member's experts (uniform), so each receives 2 × 32 = 64; the ETP ring gathers
// both members' receipts, S = 2 × 64 × h × 2 bytes = 16384, and reduce-scatters the results (the
// same S), forward after dispatch and before combine, backward the gradients' conjugates: one of each
// per F and per B. The attention's sequence-parallel pair (S = b·s·h·2 = 8192): F an all-gather and a
// reduce-scatter, B two all-gathers and a reduce-scatter; stage 0's embedding a reduce-scatter in F
// and an all-gather in B, stage 1's LM head an all-gather in F, one of each in B.
// As flows every ring is a row; analytic, an op's TP collectives are one row per kind with all their
// bytes (the ETP rings stay one row each).
Counts by_hand(int microbatches, bool expert_comm, bool tp_flows) {
  Counts expected;
  for (int gpu = 0; gpu < 8; ++gpu) {
    const bool first = gpu < 4;
    const int gathers_f = first ? 1 : 2, gathers_b = 3, scatters_f = first ? 2 : 1, scatters_b = first ? 1 : 2;
    if (tp_flows) {
      expected[{gpu, "tp-allgather", 8192}] = microbatches * (gathers_f + gathers_b);
      expected[{gpu, "tp-reducescatter", 8192}] = microbatches * (scatters_f + scatters_b);
    } else {
      for (const auto& [kind, count] : {std::pair{"tp-allgather", gathers_f}, std::pair{"tp-allgather", gathers_b},
                                        std::pair{"tp-reducescatter", scatters_f}, std::pair{"tp-reducescatter", scatters_b}})
        expected[{gpu, kind, 8192.0 * count}] += microbatches;
    }
    // The all-to-alls' rows carry no bytes (their flows are in links.csv); off, they take no time.
    for (const char* a2a : {"dispatch", "combine", "dispatch-grad", "combine-grad"}) expected[{gpu, a2a, 0}] = microbatches;
    if (!expert_comm) continue;
    expected[{gpu, "etp-allgather", 16384}] = 2 * microbatches;
    expected[{gpu, "etp-reducescatter", 16384}] = 2 * microbatches;
  }
  return expected;
}

TEST(ExpertTensorParallelCli, EachCollectiveOfAStepCountedFromTheTrace) {
  for (const std::string fidelity : {"flow", "analytic"}) {
    const std::string dir = test_support::fresh_dir("etp-trace-" + fidelity);
    const auto r = run_pipegrid(kRun + " --tp-comm " + fidelity + " --ep-comm " + fidelity + " --out " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(comm_rows(dir), by_hand(4, true, fidelity == "flow")) << fidelity;
  }
}

TEST(ExpertTensorParallelCli, EpCommOffRunsNoEtpCollectives) {
  const std::string dir = test_support::fresh_dir("etp-trace-off");
  ASSERT_EQ(run_pipegrid(kRun + " --tp-comm flow --ep-comm off --out " + dir).exit_code, 0);
  EXPECT_EQ(comm_rows(dir), by_hand(4, false, true));
}

TEST(ExpertTensorParallelCli, EtpOneKeepsWholeExpertsAndNoEtpRing) {
  // --etp 1 with --tp 2: legal (Megatron-Core's expert_tensor_parallel_size 1), the experts whole,
  // no ETP rows; ep·etp = 2 divides t·d = 4.
  const std::string dir = test_support::fresh_dir("etp-one");
  ASSERT_EQ(run_pipegrid(kRun + " --etp 1 --out " + dir).exit_code, 0);
  for (const auto& [key, count] : comm_rows(dir)) EXPECT_FALSE(std::get<1>(key).starts_with("etp-")) << std::get<1>(key);
}

TEST(ExpertTensorParallelCli, TheMemoryReportHoldsTheExpertsOverEtp) {
  // Per layer the attention (4h² + the QKV and projection biases 3h + h), the router E·h and two
  // LayerNorms 4h: 16384 + 256 + 256 + 256 = 17152; stage 0 adds the word and position embeddings,
  // 16384 + 4096, stage 1 its copy of the word embeddings, 16384; all of it ÷ t = 2. Routed: E/ep = 2
  // experts of 3·h·32 = 6144, ÷ etp: 6144 (÷ 1: 12288). Bytes per parameter: weights 2, gradients 4,
  // Adam 12.
  for (const auto& [etp, routed] : {std::pair{2, 6144}, std::pair{1, 12288}}) {
    const std::string dir = test_support::fresh_dir("etp-memory-" + std::to_string(etp));
    ASSERT_EQ(run_pipegrid(kRun + " --etp " + std::to_string(etp) + " --out " + dir).exit_code, 0);
    const nlohmann::json ranks = nlohmann::json::parse(read_file(dir + "/summary.json"))["memory"]["ranks"];
    const double stage0 = (17152 + 16384 + 4096) / 2 + routed, stage1 = (17152 + 16384) / 2 + routed;
    EXPECT_EQ(ranks[0]["weights"].get<double>(), 2 * stage0) << etp;
    EXPECT_EQ(ranks[0]["gradients"].get<double>(), 4 * stage0) << etp;
    EXPECT_EQ(ranks[0]["optimizer"].get<double>(), 12 * stage0) << etp;
    EXPECT_EQ(ranks[1]["weights"].get<double>(), 2 * stage1) << etp;
  }
}

TEST(ExpertTensorParallelCli, ContextParallelMoeMessagesAreAnalytic) {
  const auto r = run_pipegrid(kRun + " --pp 1 --cp 2 --layers 2 --cp-comm flow");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --cp 2: context parallelism with mixture-of-experts layers runs its messages at "
                   "their α-β time; give --cp-comm analytic (or off)\n");
}

// Grok-1 314B (xai-org/grok-1: 8 experts, top 2, h 6144, 48 heads, 8 key-value heads, experts of
// 32768, vocabulary 131072) cut to a few layers, in the layouts of NVIDIA's recipe (TP 4 with EP 8).
const std::string kGrok = " --hidden 6144 --heads 48 --kv-heads 8 --ffn-hidden 32768 --vocab 131072 --mlp swiglu"
                          " --norm rmsnorm --positions rope --experts 8 --top-k 2 --expert-hidden 32768"
                          " --sequence-parallel --format json";

TEST(ExpertTensorParallelCli, GrokOneRecipeLayoutsRun) {
  const struct {
    std::string layout;
    int gpus;
  } runs[] = {
      {" --preset dgx-h100 --nodes 1 --schedule 1f1b --pp 1 --microbatches 4 --tp 4 --dp 2 --ep 2 --layers 2 --seq 4096", 8},
      {" --preset dgx-h100 --nodes 8 --schedule 1f1b --pp 2 --microbatches 8 --tp 4 --dp 8 --ep 8 --layers 8 --seq 8192", 64},
      {" --preset dgx-h100 --nodes 8 --schedule interleaved --chunks 2 --pp 2 --microbatches 8 --tp 4 --dp 8 --ep 8"
       " --etp 1 --layers 8 --seq 8192",
       64},
      // With context parallelism: ep·etp = 32 divides tp·cp·dp = 64.
      {" --preset dgx-h100 --nodes 8 --schedule 1f1b --pp 1 --microbatches 8 --tp 4 --cp 2 --dp 8 --ep 8 --layers 8"
       " --seq 8192",
       64},
  };
  for (const auto& run : runs) {
    const auto r = run_pipegrid(" simulate" + run.layout + kGrok);
    ASSERT_EQ(r.exit_code, 0) << run.layout << ": " << r.err;
    const nlohmann::json summary = nlohmann::json::parse(r.out);
    EXPECT_GT(summary["makespan"].get<double>(), 0) << run.layout;
    EXPECT_EQ(summary["gpus"].size(), static_cast<std::size_t>(run.gpus)) << run.layout;
  }
}

}  // namespace
}  // namespace pipegrid
