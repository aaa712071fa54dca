// --sequence-parallel and --tp-comm-overlap as a user runs them: each TP collective of a step counted
// from trace.csv against a hand count of Megatron-Core's layers, the memory report's activations
// against Korthikanti et al. 2022's Table 2 worked by hand, and the refusals.
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

// GPT with s = 64, b = 1, h = 64, a = 4, t = 2, p = 4: one layer a stage; 1F1B over 8 micro-batches.
const std::string kRun = " simulate --platform " PIPEGRID_TEST_DATA
                         "/platforms/star-finite-16gpu.xml --tp 2 --pp 4 --microbatches 8 --layers 4 --hidden 64"
                         " --heads 4 --seq 64 --vocab 256 --schedule 1f1b --compute-efficiency 0.5 --dp-comm off";

// (gpu, trace kind, bytes) → rows of trace.csv's comm track.
using Counts = test_support::CommCounts;

Counts comm_rows(const std::string& dir) {
  return test_support::comm_counts(dir, [](const std::string& kind) { return kind.starts_with("tp-"); });
}

nlohmann::json simulated(const std::string& name, const std::string& flags) {
  const std::string dir = test_support::fresh_dir("sp-" + name);
  const auto r = run_pipegrid(kRun + flags + " --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_file(dir + "/summary.json"));
}

TEST(SequenceParallelCli, EachAllReduceBecomesAReduceScatterAndAnAllGatherInTheTrace) {
  // Every collective's S = b·s·h·2 = 8192 bytes; 8 micro-batches. GPU 0 is stage 0 (a layer and the
  // embedding), GPU 2 stage 1, GPU 6 stage 3 (a layer and the LM head).
  const std::string plain = test_support::fresh_dir("sp-trace-plain"), sp = test_support::fresh_dir("sp-trace");
  ASSERT_EQ(run_pipegrid(kRun + " --tp-comm flow --out " + plain).exit_code, 0);
  ASSERT_EQ(run_pipegrid(kRun + " --tp-comm flow --sequence-parallel --out " + sp).exit_code, 0);
  // Without: 2 all-reduces a layer each way, the embedding's in F, the LM head's in B: 5, 4, 5 per
  // micro-batch.
  const Counts without = comm_rows(plain);
  EXPECT_EQ(without, (Counts{{{0, "tp-allreduce", 8192}, 40}, {{1, "tp-allreduce", 8192}, 40},
                             {{2, "tp-allreduce", 8192}, 32}, {{3, "tp-allreduce", 8192}, 32},
                             {{4, "tp-allreduce", 8192}, 32}, {{5, "tp-allreduce", 8192}, 32},
                             {{6, "tp-allreduce", 8192}, 40}, {{7, "tp-allreduce", 8192}, 40}}));
  // With: per layer F 2 all-gathers + 2 reduce-scatters, B 4 all-gathers (2 of them gathering the
  // column GEMMs' inputs again for their weight gradients) + 2 reduce-scatters; the embedding a
  // reduce-scatter in F and an all-gather in B, the LM head an all-gather in F and one of each in B.
  // Stage 0: 7 all-gathers, 5 reduce-scatters; stage 1: 6 and 4; stage 3: 8 and 5 per micro-batch.
  const Counts with = comm_rows(sp);
  for (int gpu = 0; gpu < 8; ++gpu) {
    const int stage = gpu / 2;
    const int gathers = stage == 0 ? 7 : stage == 3 ? 8 : 6, scatters = stage == 0 || stage == 3 ? 5 : 4;
    EXPECT_EQ((with.at({gpu, "tp-allgather", 8192})), 8 * gathers) << "gpu " << gpu;
    EXPECT_EQ((with.at({gpu, "tp-reducescatter", 8192})), 8 * scatters) << "gpu " << gpu;
    EXPECT_EQ(with.count({gpu, "tp-allreduce", 8192}), 0u);
  }
  EXPECT_EQ(with.size(), 16u);
}

TEST(SequenceParallelCli, TheMemoryReportIsKorthikantisTable2) {
  // Rank 1 of 1F1B holds p − 1 = 3 micro-batches at its peak, each one layer's activations:
  // sbh = 4096, 5as²b/t = 40960 bytes (tests/model/sequence_parallel_test.cc works the terms).
  const auto rank1 = [](const nlohmann::json& summary) { return summary["memory"]["ranks"][1]["activations"].get<double>(); };
  EXPECT_EQ(rank1(simulated("tp", "")), 3 * (4096 * 22 + 40960));                     // sbh(10 + 24/t) + 5as²b/t
  EXPECT_EQ(rank1(simulated("tp-sp", " --sequence-parallel")), 3 * (4096 * 17 + 40960));  // sbh·34/t + 5as²b/t
  EXPECT_EQ(rank1(simulated("tp-sel", " --recompute selective")), 3 * (4096 * 22));    // sbh(10 + 24/t)
  EXPECT_EQ(rank1(simulated("tp-sp-sel", " --sequence-parallel --recompute selective")), 3 * (4096 * 17));  // sbh·34/t
}

TEST(SequenceParallelCli, OverlapHidesTheCollectivesUnderTheirGemms) {
  // The same step with the collectives after the compute and under it: never longer, and the summary
  // says what the overlap took (no SMs with --compute-efficiency).
  const nlohmann::json serial = simulated("serial", " --sequence-parallel");
  const nlohmann::json overlapped = simulated("overlap", " --sequence-parallel --tp-comm-overlap");
  EXPECT_LT(overlapped["makespan"].get<double>(), serial["makespan"].get<double>());
  EXPECT_EQ(overlapped["inputs"]["options"]["tp_comm_overlap"]["sms"], 16);
  EXPECT_EQ(overlapped["inputs"]["options"]["tp_comm_overlap"]["rs_gemm_slowdown"], 1);
}

TEST(SequenceParallelCli, OverlapAsFlowsIsOverlapAtTheRingsTimes) {
  // A layer of h = 1024 on the A100s' kernel model, where the GEMMs and the rings are of a size: on
  // this network no two flows share a link, so the rings as flows take their α-β time and the two
  // fidelities give one step and one account of it. A100: 108 SMs, a reduce-scatter's GEMM on 92.
  const std::string model = " --hidden 1024 --heads 16 --seq 2048 --vocab 32000 --sequence-parallel --tp-comm-overlap";
  const std::string flags = " simulate --platform " PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml --tp 2 --pp 4"
                            " --microbatches 8 --layers 4 --schedule 1f1b --dp-comm off --format json" + model;
  const auto analytic = run_pipegrid(flags + " --tp-comm analytic");
  const auto flows = run_pipegrid(flags + " --tp-comm flow");
  ASSERT_EQ(analytic.exit_code, 0) << analytic.err;
  ASSERT_EQ(flows.exit_code, 0) << flows.err;
  const nlohmann::json a = nlohmann::json::parse(analytic.out), f = nlohmann::json::parse(flows.out);
  EXPECT_EQ(a["inputs"]["options"]["tp_comm_overlap"]["rs_gemm_slowdown"], 108.0 / 92);
  const double step = a["makespan"];
  EXPECT_NEAR(f["makespan"].get<double>(), step, 1e-6 * step);
  EXPECT_NEAR(f["ranks"][1]["busy"].get<double>(), a["ranks"][1]["busy"].get<double>(), 1e-6 * step);
  EXPECT_NEAR(f["ranks"][1]["exposed_comm"]["tp"].get<double>(), a["ranks"][1]["exposed_comm"]["tp"].get<double>(),
              1e-6 * step);
  EXPECT_GT(a["ranks"][1]["exposed_comm"]["tp"].get<double>(), 0);
}

TEST(SequenceParallelCli, OverlapWithoutSequenceParallelismIsRefused) {
  const auto r = run_pipegrid(kRun + " --tp-comm-overlap");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --tp-comm-overlap: needs --sequence-parallel (Transformer Engine overlaps the "
                   "sequence-parallel reduce-scatters and all-gathers, as Megatron-Core requires)\n");
  EXPECT_EQ(r.out, "");
}

TEST(SequenceParallelCli, ExplicitTimesHaveNothingToShard) {
  const auto r = run_pipegrid(" simulate --platform " PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml --tp 2 --pp 4"
                              " --microbatches 8 --schedule 1f1b --time-f 1 --time-b 2 --sequence-parallel");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --sequence-parallel/--tp-comm-overlap: need a model (--model or --layers …): "
                   "explicit times have no TP collectives to split or overlap\n");
}

TEST(SequenceParallelCli, ASequenceTheTensorParallelGpusCannotSplitIsRefused) {
  const auto r = run_pipegrid(kRun + " --sequence-parallel --seq 63");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --sequence-parallel: --tp 2 must divide --seq 63 (each TP GPU holds s/t tokens)\n");
}

}  // namespace
}  // namespace pipegrid
