// --cp, --cp-algo and --cp-comm as a user runs them: each context-parallel message of a step counted
// from trace.csv against a hand count of Transformer Engine's loops, the gradient ring of dp·cp GPUs,
// the memory report ÷ cp worked by hand, and every refusal.
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

// GPT with s = 64, b = 1, h = 64, a = 4 (d = 16), p = 4: one layer a stage; 1F1B over 8 micro-batches.
const std::string kRun = " simulate --platform " PIPEGRID_TEST_DATA
                         "/platforms/star-finite-16gpu.xml --pp 4 --microbatches 8 --layers 4 --hidden 64"
                         " --heads 4 --seq 64 --vocab 256 --schedule 1f1b --compute-efficiency 0.5";

// (gpu, trace kind, bytes) → rows of trace.csv's comm track whose kind starts with `prefix`.
using Counts = test_support::CommCounts;

Counts comm_rows(const std::string& dir, const std::string& prefix) {
  return test_support::comm_counts(dir, [&](const std::string& kind) { return kind.starts_with(prefix); });
}

std::string run_to(const std::string& name, const std::string& flags) {
  const std::string dir = test_support::fresh_dir("cp-" + name);
  const auto r = run_pipegrid(kRun + flags + " --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

nlohmann::json summary(const std::string& dir) { return nlohmann::json::parse(read_file(dir + "/summary.json")); }

TEST(ContextParallelCli, TheRingSendsKvBlocksAsTransformerEngineDoes) {
  // cp 4 on 16 GPUs: each GPU holds s/cp = 16 tokens, K and V of them 2·16·64·2 = 4096 bytes. Per
  // layer forward cp − 1 = 3 KV sends; backward cp = 4 sends: KV, KV + dKV twice (8192), dKV. One
  // layer a stage, 8 micro-batches: 8·(3 + 2) = 40 sends of 4096 bytes and 16 of 8192 per GPU.
  const Counts sends = comm_rows(run_to("ring", " --cp 4 --cp-comm flow --dp-comm off"), "cp-");
  for (int gpu = 0; gpu < 16; ++gpu) {
    EXPECT_EQ((sends.at({gpu, "cp-send", 4096})), 40) << "gpu " << gpu;
    EXPECT_EQ((sends.at({gpu, "cp-send", 8192})), 16) << "gpu " << gpu;
  }
  EXPECT_EQ(sends.size(), 32u);
}

TEST(ContextParallelCli, AnalyticSendsCarryTheSameBytesOneRowAnOp) {
  // The α-β path writes one row per op with all its sends' bytes: F 3·4096, B 2·4096 + 2·8192.
  const Counts rows = comm_rows(run_to("ring-analytic", " --cp 4 --dp-comm off"), "cp-");
  for (int gpu = 0; gpu < 16; ++gpu) {
    EXPECT_EQ((rows.at({gpu, "cp-send", 3 * 4096})), 8) << "gpu " << gpu;
    EXPECT_EQ((rows.at({gpu, "cp-send", 2 * 4096 + 2 * 8192})), 8) << "gpu " << gpu;
  }
  EXPECT_EQ(rows.size(), 32u);
}

TEST(ContextParallelCli, UlyssesRunsFourAllToAllsALayerEachWay) {
  // cp 2: Q, K, V and the output each b·(s/cp)·64·2 = 4096 bytes on a GPU (K and V: the 4 heads'
  // own, no GQA); 4 all-to-alls a layer forward and 4 backward: 64 per GPU over 8 micro-batches.
  const Counts rows = comm_rows(run_to("a2a", " --cp 2 --cp-algo all-to-all --cp-comm flow --dp-comm off"), "cp-");
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ((rows.at({gpu, "cp-alltoall", 4096})), 64) << "gpu " << gpu;
  EXPECT_EQ(rows.size(), 8u);
}

TEST(ContextParallelCli, RecomputationRunsTheForwardRingAgainInTheBackward) {
  // Selective recomputation runs the attention core again before its backward, with its cp − 1 = 1
  // KV send: cp 2, KV 2·32·64·2 = 8192 bytes, per micro-batch F 1 send, B 2 + 1.
  const Counts sends =
      comm_rows(run_to("ring-selective", " --cp 2 --cp-comm flow --dp-comm off --recompute selective"), "cp-");
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ((sends.at({gpu, "cp-send", 8192})), 8 * 4) << "gpu " << gpu;
}

TEST(ContextParallelCli, GradientsAreReducedOverDpTimesCp) {
  // dp 1, cp 2: Megatron-Core's gradient group with context parallelism has 2 GPUs, so each stage's
  // gradients go round a ring of two (without CP, a ring of one reduces nothing).
  const Counts with_cp = comm_rows(run_to("grad-cp", " --cp 2"), "dp-");
  const Counts without = comm_rows(run_to("grad-plain", ""), "dp-");
  EXPECT_TRUE(without.empty());
  for (int gpu = 0; gpu < 8; ++gpu) {
    int rings = 0;
    for (const auto& [key, count] : with_cp)
      if (std::get<0>(key) == gpu && std::get<1>(key) == "dp-allreduce") rings += count;
    EXPECT_GT(rings, 0) << "gpu " << gpu;
  }
  // dp 2, cp 2, the ring as a formula: on this star a hop is 2 ports of 25 GB/s and 1.5 µs, so an
  // all-reduce of S over n GPUs takes 2(n − 1)/n · S / 25e9 + 2(n − 1) · 3 µs — n = dp·cp = 4.
  const std::string dir = run_to("grad-ring", " --cp 2 --dp 2 --dp-comm analytic --nccl-nvlink-efficiency 1");
  std::istringstream csv(read_file(dir + "/trace.csv"));
  int rows = 0;
  for (std::string line; std::getline(csv, line);) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() < 14 || cells[7] != "dp-allreduce") continue;
    const double bytes = std::stod(cells[11]), seconds = std::stod(cells[13]) - std::stod(cells[12]);
    EXPECT_NEAR(seconds, 2.0 * 3 / 4 * bytes / 25e9 + 2 * 3 * 3e-6, 1e-12) << line;
    ++rows;
  }
  EXPECT_GT(rows, 0);
  // The echo names the CP size; the gradient group shows in the layout as cp next to dp.
  const nlohmann::json s = summary(run_to("echo", " --cp 2 --dp-comm off"));
  EXPECT_EQ(s["inputs"]["cp"], (nlohmann::json{{"size", 2}, {"algo", "ring"}, {"comm", "analytic"}}));
  EXPECT_EQ(s["inputs"]["layout"]["cp"]["size"], 2);
  EXPECT_TRUE(s["ranks"][0]["exposed_comm"].contains("cp"));
  EXPECT_FALSE(summary(run_to("echo-plain", " --dp-comm off"))["inputs"].contains("cp"));
}

TEST(ContextParallelCli, TheMemoryReportHoldsTheGpusShareOfTheTokens) {
  // Rank 1 of 1F1B holds p − 1 = 3 micro-batches at its peak, each one layer: sbh·34 + 5as²b =
  // 4096·34 + 5·4·64²·1 = 221184 bytes at t = 1; with cp 2 a GPU holds s/2 of the tokens, its scores
  // s/2 queries against s keys: half of each term.
  const auto rank1 = [](const std::string& dir) { return summary(dir)["memory"]["ranks"][1]["activations"].get<double>(); };
  EXPECT_EQ(rank1(run_to("mem", " --dp-comm off")), 3 * 221184.0);
  EXPECT_EQ(rank1(run_to("mem-cp2", " --cp 2 --dp-comm off")), 3 * 221184.0 / 2);
  EXPECT_EQ(rank1(run_to("mem-cp4", " --cp 4 --dp-comm off")), 3 * 221184.0 / 4);
}

TEST(ContextParallelCli, ASequenceTheRingCannotSplitIsRefused) {
  const auto r = run_pipegrid(kRun + " --cp 4 --seq 60");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --cp 4: 2·cp = 8 must divide --seq 60 (the ring's load-balanced causal split "
                   "cuts each sequence into 2·cp chunks)\n");
  EXPECT_EQ(r.out, "");
}

TEST(ContextParallelCli, MoreGpusThanThePlatformHasAreRefused) {
  const auto r = run_pipegrid(kRun + " --cp 4 --tp 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --tp 2 --pp 4 --dp 1 --cp 4: tp·cp·dp·pp = 32 GPUs, the platform has 16\n");
}

TEST(ContextParallelCli, UlyssesNeedsTheHeadsToSplitOverTpTimesCp) {
  const auto heads = run_pipegrid(kRun + " --cp 8 --cp-algo all-to-all --pp 2");
  EXPECT_EQ(heads.exit_code, 2);
  EXPECT_EQ(heads.err, "pipegrid: error: --cp-algo all-to-all: tp·cp = 8 must divide --heads 4 (each GPU attends "
                       "with whole heads over the whole sequence)\n");
  const auto kv = run_pipegrid(kRun + " --cp 2 --cp-algo all-to-all --heads 8 --kv-heads 1");
  EXPECT_EQ(kv.exit_code, 2);
  EXPECT_EQ(kv.err, "pipegrid: error: --cp-algo all-to-all: tp·cp = 2 must divide --kv-heads 1 (the key-value heads "
                    "are re-sharded by heads too)\n");
}

TEST(ContextParallelCli, ExplicitTimesHaveNoAttentionToSplit) {
  const auto r = run_pipegrid(" simulate --platform " PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml --pp 4"
                              " --microbatches 8 --schedule 1f1b --time-f 1 --time-b 2 --cp 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --cp 2: context parallelism needs a model (--model or --layers …): explicit "
                   "times have no attention to split\n");
}

// docs/simulate.md's long-context run: Llama-3.1-8B at 131072 tokens, TP 2 + SP × CP 8, FlashAttention.
// Its attention square is most of the work, and causal FlashAttention computes half of it: MFU counts
// that half (as NeMo's formulas do), Megatron's count with the s/h term halved, by hand:
// 12·B·s·l·h²·((1 + g/a + s/(2h))·a·d/h + 3/2·ffn/h) + 6·B·s·h·V over 16 GPUs × step × 989 TFLOP/s.
// Counting the whole square put it at 1.2, above the GPU's peak.
TEST(ContextParallelCli, MfuCountsTheCausalHalfOfTheAttentionSquare) {
  const std::string dir = test_support::fresh_dir("cp-mfu");
  const auto r = run_pipegrid(
      "simulate --preset dgx-h100 --nodes 2 --model llama3.1-8b --seq 131072 --tp 2 --cp 8 --pp 1 --microbatches 4 "
      "--schedule 1f1b --sequence-parallel --recompute selective --flash-attention --distributed-optimizer "
      "--trace off --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir + "/summary.json"));
  const double B = 4, s = 131072, l = 32, h = 4096, g = 8, a = 32, d = 128, ffn = 14336, V = 128256;
  const double flops = 12 * B * s * l * h * h * ((1 + g / a + s / (2 * h)) * a * d / h + 1.5 * ffn / h) + 6 * B * s * h * V;
  const double step = summary["steady_step"].get<double>();  // MFU's step: the steady state's
  EXPECT_NEAR(summary["mfu"].get<double>(), flops / (16 * step * 989e12), 1e-9);
  EXPECT_LT(summary["mfu"].get<double>(), 1);
}

}  // namespace
}  // namespace pipegrid
