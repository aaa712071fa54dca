// --zero 0|1|2|3 as a user runs it: ZeRO-3's (FSDP's) all-gathers and reduce-scatters of a step
// counted from trace.csv, with their bytes, against a hand count of torchtitan's units; the memory
// report's bytes per GPU at each stage worked by hand, routed experts sharded over their
// expert-data-parallel group; --distributed-optimizer as --zero 1, and the refusals.
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

// GPT with h = 64, a = 4, s = 64, V = 256 and 4 layers on 2 data-parallel replicas. A layer holds
// 12h² + 13h = 49 984 parameters: its all-gather S = 99 968 bytes (bf16), its reduce-scatter 199 936
// (fp32, --gradient-bytes 4). The root unit: the word and position embeddings, V·h + s·h = 20 480
// parameters (40 960 and 81 920 bytes); on the last of two stages the LM head's copy of the tied
// embeddings, V·h = 16 384 (32 768 and 65 536 bytes).
const std::string kRun = " simulate --platform " PIPEGRID_TEST_DATA
                         "/platforms/star-finite-16gpu.xml --dp 2 --layers 4 --hidden 64 --heads 4 --seq 64"
                         " --vocab 256 --compute-efficiency 0.5";

// (gpu, trace kind, bytes) → rows of trace.csv's comm track, but the pipeline's own messages.
using Counts = test_support::CommCounts;

Counts comm_rows(const std::string& dir) {
  return test_support::comm_counts(dir, [](const std::string& kind) { return kind != "p2p"; });
}

std::string simulated(const std::string& name, const std::string& flags) {
  const std::string dir = test_support::fresh_dir("zero-" + name);
  const auto r = run_pipegrid(kRun + " --schedule 1f1b" + flags + " --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

nlohmann::json summary(const std::string& dir) { return nlohmann::json::parse(read_file(dir + "/summary.json")); }

TEST(ZeroCli, WithoutAPipelineEachUnitIsGatheredBeforeItsForwardAndBackwardAndReduceScatteredAfter) {
  // Per micro-batch the forward gathers the root and the 4 blocks; the backward the root and blocks 3…1
  // (torchtitan keeps the last block gathered after its forward); the backward reduce-scatters the 4
  // blocks and the root. 2 micro-batches; both replicas alike; no other gradient collective.
  for (const char* fidelity : {"flow", "analytic"}) {
    const Counts rows =
        comm_rows(simulated(std::string("pp1-") + fidelity, std::string(" --pp 1 --microbatches 2 --zero 3 --dp-comm ") + fidelity));
    Counts expected;
    for (int gpu = 0; gpu < 2; ++gpu) {
      expected[{gpu, "fsdp-allgather", 40960}] = 2 * 2;
      expected[{gpu, "fsdp-allgather", 99968}] = 2 * (4 + 3);
      expected[{gpu, "fsdp-reducescatter", 81920}] = 2;
      expected[{gpu, "fsdp-reducescatter", 199936}] = 2 * 4;
    }
    EXPECT_EQ(rows, expected) << fidelity;
  }
  // Resharded after every forward (torchtitan's "always"), the backward gathers the last block too.
  const Counts always = comm_rows(simulated("pp1-always", " --pp 1 --microbatches 2 --zero 3 --fsdp-reshard-after-forward"));
  EXPECT_EQ(always.at({0, "fsdp-allgather", 99968.0}), 2 * (4 + 4));
  EXPECT_EQ(always.at({0, "fsdp-allgather", 40960.0}), 2 * 2);
  EXPECT_EQ(always.at({0, "fsdp-reducescatter", 199936.0}), 2 * 4);
}

TEST(ZeroCli, WithAPipelineEachStageGathersOnceAStepAndReduceScattersAfterItsLastBackward) {
  // pp 2, 4 micro-batches: two layers a stage. Stage 0 (GPUs 0, 1) gathers its embeddings and 2 blocks
  // once, before its first forward; stage 1 (GPUs 2, 3) its LM head and 2 blocks. Each reduce-scatters
  // its units once; the tied embeddings' all-reduce between the two stages stays.
  const Counts rows = comm_rows(simulated("pp2", " --pp 2 --microbatches 4 --zero 3"));
  Counts expected;
  for (int gpu = 0; gpu < 4; ++gpu) {
    const bool first = gpu < 2;
    expected[{gpu, "fsdp-allgather", first ? 40960 : 32768}] = 1;
    expected[{gpu, "fsdp-allgather", 99968}] = 2;
    expected[{gpu, "fsdp-reducescatter", first ? 81920 : 65536}] = 1;
    expected[{gpu, "fsdp-reducescatter", 199936}] = 2;
    expected[{gpu, "embedding-allreduce", 65536}] = 1;  // V·h / t × 4 bytes
  }
  EXPECT_EQ(rows, expected);
}

TEST(ZeroCli, ReshardingAfterForwardGathersForEveryMicroBatch) {
  // The same with --fsdp-reshard-after-forward: each of the 4 micro-batches' forward and backward
  // gathers the stage's root and 2 blocks; the reduce-scatters stay once a step.
  const Counts rows = comm_rows(simulated("pp2-reshard", " --pp 2 --microbatches 4 --zero 3 --fsdp-reshard-after-forward"));
  for (int gpu = 0; gpu < 4; ++gpu) {
    const bool first = gpu < 2;
    EXPECT_EQ((rows.at({gpu, "fsdp-allgather", first ? 40960.0 : 32768.0})), 4 * 2) << gpu;
    EXPECT_EQ((rows.at({gpu, "fsdp-allgather", 99968.0})), 4 * 2 * 2) << gpu;
    EXPECT_EQ((rows.at({gpu, "fsdp-reducescatter", 199936.0})), 2) << gpu;
  }
}

TEST(ZeroCli, EachStageShardsWhatItsPaperSays) {
  // Stage 0 of pp 2 holds N = 2 layers + the embeddings = 2·49 984 + 20 480 = 120 448 parameters per
  // GPU; stage 1 2·49 984 + 16 384 = 116 352. d = 2, buckets of 10 000 parameters (40 000 bytes).
  const double n[2] = {120448, 116352}, root[2] = {20480, 16384}, block = 49984, d = 2, bucket = 40000;
  const std::string flags = " --pp 2 --microbatches 4 --grad-bucket-size 10000";
  const auto ranks = [&](const std::string& name, const std::string& more) {
    return summary(simulated(name, flags + more))["memory"]["ranks"];
  };
  const nlohmann::json zero[4] = {ranks("mem0", ""), ranks("mem1", " --zero 1"), ranks("mem2", " --zero 2"),
                                  ranks("mem3", " --zero 3")};
  const nlohmann::json reshard = ranks("mem3-reshard", " --zero 3 --fsdp-reshard-after-forward");
  for (int r = 0; r < 2; ++r) {
    const double activations = zero[0][r]["activations"];
    // weights, gradients, optimizer, gathered weights, gradients not yet reduce-scattered
    const double hand[5][5] = {
        {2 * n[r], 4 * n[r], 12 * n[r], 0, 0},
        {2 * n[r], 4 * n[r], 12 * n[r] / d, 0, 0},
        {2 * n[r], 4 * n[r] / d, 12 * n[r] / d, 0, 2 * bucket},           // two buckets in flight
        {2 * n[r] / d, 4 * n[r] / d, 12 * n[r] / d, 2 * n[r], 4 * n[r]},  // the stage gathered all step
        {2 * n[r] / d, 4 * n[r] / d, 12 * n[r] / d, 2 * (root[r] + 2 * block), 4 * n[r]},  // root + 2 blocks
    };
    for (int z = 0; z < 5; ++z) {
      const nlohmann::json& rank = z < 4 ? zero[z][r] : reshard[r];
      EXPECT_EQ(rank["activations"].get<double>(), activations) << "zero " << z << " rank " << r;
      EXPECT_EQ(rank["weights"].get<double>(), hand[z][0]) << "zero " << z << " rank " << r;
      EXPECT_EQ(rank["gradients"].get<double>(), hand[z][1]) << "zero " << z << " rank " << r;
      EXPECT_EQ(rank["optimizer"].get<double>(), hand[z][2]) << "zero " << z << " rank " << r;
      if (z >= 2) {
        EXPECT_EQ(rank["unsharded_weights"].get<double>(), hand[z][3]) << "zero " << z << " rank " << r;
        EXPECT_EQ(rank["unreduced_gradients"].get<double>(), hand[z][4]) << "zero " << z << " rank " << r;
      } else {
        EXPECT_FALSE(rank.contains("unsharded_weights"));  // a run without ZeRO-2/3 keeps its summary
      }
      double total = activations;
      for (double bytes : hand[z]) total += bytes;
      EXPECT_EQ(rank["total"].get<double>(), total) << "zero " << z << " rank " << r;
    }
  }
}

TEST(ZeroCli, WithoutAPipelineTheRootAndTwoBlocksAreGathered) {
  // One stage of N = 4·49 984 + 20 480 = 220 416 parameters: gathered the root and two blocks (the
  // one computing, the one prefetched), not yet reduce-scattered the root's and one block's gradients.
  const nlohmann::json rank = summary(simulated("mem-pp1", " --pp 1 --microbatches 2 --zero 3"))["memory"]["ranks"][0];
  const double n = 220416, root = 20480, block = 49984;
  EXPECT_EQ(rank["weights"].get<double>(), 2 * n / 2);
  EXPECT_EQ(rank["unsharded_weights"].get<double>(), 2 * (root + 2 * block));
  EXPECT_EQ(rank["unreduced_gradients"].get<double>(), 4 * (root + block));
}

TEST(ZeroCli, WithContextParallelismFsdpShardsOverDpTimesCp) {
  // dp 2 × cp 2, no pipeline: torchtitan's dp_shard × cp mesh, Megatron-Core's gradient group of
  // dp·cp = 4 GPUs (0…3). Every GPU gathers and reduce-scatters the same units as without CP (the
  // parameters do not depend on the tokens a GPU holds): per micro-batch the root and 4 blocks before
  // the forward, the root and blocks 3…1 before the backward; the 4 blocks and the root after it.
  const std::string cp = " --pp 1 --microbatches 2 --zero 3 --cp 2 --cp-comm off";
  const Counts rows = comm_rows(simulated("cp2", cp));
  Counts expected;
  for (int gpu = 0; gpu < 4; ++gpu) {
    expected[{gpu, "fsdp-allgather", 40960}] = 2 * 2;
    expected[{gpu, "fsdp-allgather", 99968}] = 2 * (4 + 3);
    expected[{gpu, "fsdp-reducescatter", 81920}] = 2;
    expected[{gpu, "fsdp-reducescatter", 199936}] = 2 * 4;
  }
  EXPECT_EQ(rows, expected);
  // Analytic, a gather of S over the ring of n = 4: on this star a hop is 2 ports of 25 GB/s and
  // 1.5 µs, so half an all-reduce: (n − 1)/n · S / 25e9 + (n − 1) · 3 µs.
  const std::string dir = simulated("cp2-ring", cp + " --dp-comm analytic --nccl-nvlink-efficiency 1");
  std::istringstream csv(read_file(dir + "/trace.csv"));
  int gathers = 0;
  for (std::string line; std::getline(csv, line);) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() < 14 || cells[7] != "fsdp-allgather") continue;
    const double bytes = std::stod(cells[11]), seconds = std::stod(cells[13]) - std::stod(cells[12]);
    EXPECT_NEAR(seconds, 3.0 / 4 * bytes / 25e9 + 3 * 3e-6, 1e-12) << line;
    ++gathers;
  }
  EXPECT_EQ(gathers, 4 * 2 * (2 + 7));
  // The shards ÷ dp·cp = 4: N = 4·49 984 + 20 480 = 220 416 parameters.
  const nlohmann::json rank = summary(dir)["memory"]["ranks"][0];
  const double n = 220416;
  EXPECT_EQ(rank["weights"].get<double>(), 2 * n / 4);
  EXPECT_EQ(rank["gradients"].get<double>(), 4 * n / 4);
  EXPECT_EQ(rank["optimizer"].get<double>(), 12 * n / 4);
}

TEST(ZeroCli, TheDistributedOptimizerIsZeroOne) {
  // The same run, byte for byte, under either name.
  const std::string flags = " --pp 2 --microbatches 4 --grad-bucket-size 10000";
  const std::string alias = simulated("alias", flags + " --distributed-optimizer");
  const std::string one = simulated("one", flags + " --zero 1");
  const std::string both = simulated("both", flags + " --zero 1 --distributed-optimizer");
  for (const char* file : {"/summary.json", "/trace.csv", "/links.csv"}) {
    EXPECT_EQ(read_file(alias + file), read_file(one + file)) << file;
    EXPECT_EQ(read_file(alias + file), read_file(both + file)) << file;
  }
  const nlohmann::json s = summary(one);
  EXPECT_EQ(s["inputs"]["model"]["distributed_optimizer"], true);
  EXPECT_FALSE(s["inputs"]["model"].contains("zero"));
  EXPECT_EQ(summary(simulated("echo3", flags + " --zero 3"))["inputs"]["model"]["zero"], 3);
}

TEST(ZeroCli, RoutedExpertsAreShardedOverTheirExpertDataParallelGroup) {
  // tp 1 × pp 2 × dp 4 × ep 2, one MoE layer a stage with 4 experts of H_e = 32 (top 2): Megatron-Core's
  // distributed optimizer shards the dense parameters over the dp = 4 GPUs of the data-parallel group
  // and a GPU's routed experts over the edp = dp/ep = 2 that hold the same ones. Per GPU, dense: the
  // layer's attention 4h² + 4h, router E·h and norms 4h, 17 152, with the embeddings 16 384 + 4096
  // (stage 0) or the LM head's copy 16 384 (stage 1); routed: E/ep = 2 experts of 3·h·H_e = 6144.
  const double dense[2] = {17152 + 16384 + 4096, 17152 + 16384}, routed = 2 * 6144;
  const std::string moe = " --pp 2 --dp 4 --microbatches 4 --layers 2 --experts 4 --top-k 2 --expert-hidden 32 --ep 2"
                          " --hbm-bandwidth 1e9 --grad-bucket-size 10000";
  for (int zero : {1, 2}) {
    const std::string dir = simulated("moe-" + std::to_string(zero), moe + " --zero " + std::to_string(zero));
    const nlohmann::json ranks = summary(dir)["memory"]["ranks"];
    for (int r = 0; r < 2; ++r) {
      const double whole = dense[r] + routed, shard = dense[r] / 4 + routed / 2;
      EXPECT_EQ(ranks[r]["weights"].get<double>(), 2 * whole) << zero << " rank " << r;
      EXPECT_EQ(ranks[r]["gradients"].get<double>(), 4 * (zero == 2 ? shard : whole)) << zero << " rank " << r;
      EXPECT_EQ(ranks[r]["optimizer"].get<double>(), 12 * shard) << zero << " rank " << r;
    }
    // Adam streams 42 bytes per parameter of the GPU's shard, here at 1 GB/s (--compute-efficiency:
    // the optimizer's bytes at --hbm-bandwidth); every GPU of a stage alike.
    std::istringstream csv(read_file(dir + "/trace.csv"));
    int steps = 0;
    for (std::string line; std::getline(csv, line);) {
      std::vector<std::string> cells;
      std::istringstream row(line);
      for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
      if (cells.size() < 14 || cells[7] != "optimizer") continue;
      const int r = std::stoi(cells[5]);
      const double shard = dense[r] / 4 + routed / 2;
      EXPECT_NEAR(std::stod(cells[13]) - std::stod(cells[12]), shard * 42 / 1e9, 1e-15) << line;
      ++steps;
    }
    EXPECT_EQ(steps, 8) << zero;
  }
}

TEST(ZeroCli, DisagreeingNamesAndWhatFsdpDoesNotModelAreRefused) {
  const struct {
    std::string flags, err;
  } cases[] = {
      {" --schedule 1f1b --pp 2 --microbatches 4 --distributed-optimizer --zero 2",
       "--distributed-optimizer and --zero 2: --distributed-optimizer is --zero 1; give one"},
      {" --schedule 1f1b --pp 2 --microbatches 4 --distributed-optimizer --zero 0",
       "--distributed-optimizer and --zero 0: --distributed-optimizer is --zero 1; give one"},
      {" --schedule 1f1b --pp 2 --microbatches 4 --zero 2 --fsdp-reshard-after-forward",
       "--fsdp-reshard-after-forward: needs --zero 3 (only FSDP shards the parameters)"},
      {" --pp 2 --microbatches 8 --zero 3 --schedule dualpipe",
       "--zero 3: dualpipe holds a model stage on two ranks, which FSDP (torchtitan) does not shard; run it with "
       "--zero 2 or less"},
  };
  for (const auto& c : cases) {
    const auto r = run_pipegrid(kRun + c.flags);
    EXPECT_EQ(r.exit_code, 2) << c.flags;
    EXPECT_EQ(r.err, "pipegrid: error: " + c.err + "\n") << c.flags;
    EXPECT_EQ(r.out, "");
  }
  const auto times = run_pipegrid(" simulate --platform " PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml --dp 2"
                                  " --pp 2 --microbatches 4 --schedule 1f1b --time-f 1 --time-b 2 --zero 3");
  EXPECT_EQ(times.exit_code, 2);
  EXPECT_EQ(times.err, "pipegrid: error: --zero/--fsdp-reshard-after-forward: need a model (--model or --layers …): "
                       "explicit times have no parameters to shard\n");
  const auto four = run_pipegrid(kRun + " --schedule 1f1b --pp 2 --microbatches 4 --zero 4");
  EXPECT_EQ(four.exit_code, 2);
  EXPECT_NE(four.err.find("--zero"), std::string::npos) << four.err;
}

}  // namespace
}  // namespace pipegrid
