// `pipegrid simulate` as a user runs it: its outputs, a deadlock (exit 3), and bad input (one line,
// exit 2, before SimGrid starts).
#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <sstream>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

const std::string kPlatforms = PIPEGRID_SOURCE_DIR "/platforms";
const std::string kStar = PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml";

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(SimulateCli, TheExecutorRunsTheKernelModelsTimes) {
  // One A100, three micro-batches of a 2-layer model, no communication: the step is the kernels of
  // F, I and W three times over, then the optimizer's update — as summary.json's compute_breakdown
  // lists them, kernel by kernel, from the calibrated model (tests/model/kernel_model_test.cc checks
  // their times by hand).
  const auto r = run_pipegrid("simulate --platform " + kPlatforms +
                              "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --microbatches 3 --layers 2 --hidden 1024 "
                              "--heads 16 --seq 1024 --vocab 50304 --tp-comm off --dp-comm off --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  const auto& breakdown = summary["compute_breakdown"];
  EXPECT_EQ(breakdown["model"], "kernels");
  EXPECT_EQ(breakdown["gpu"], "a100-80gb");
  double kernels = 0, update = 0;
  for (const auto& kernel : breakdown["stages"][0]["kernels"])
    (kernel[1] == "step" ? update : kernels) += kernel[12].get<double>();
  EXPECT_GT(update, 0);
  EXPECT_NEAR(summary["makespan"].get<double>(), 3 * kernels + update, 1e-9);
  // The same run under the old model: every FLOP at the peak.
  const auto old = run_pipegrid("simulate --platform " + kPlatforms +
                                "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --microbatches 3 --layers 2 --hidden 1024 "
                                "--heads 16 --seq 1024 --vocab 50304 --tp-comm off --dp-comm off --format json "
                                "--compute-efficiency 1");
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(nlohmann::json::parse(old.out)["compute_breakdown"]["model"], "efficiency");
}

TEST(SimulateCli, TheNcclEfficiencySlowsTheRingsInsideANode) {
  // One stage, t = 2 on NVLink (300 GB/s each way, 1 µs GPU to GPU), one micro-batch, no recomputation:
  // 2 TP all-reduces per layer in F and 2 in B, 2 layers, plus the embedding's in F and the head's in
  // B: 10 all-reduces of b·s·h bf16 = 1024·1024·2 bytes. A ring of two moves 2(n − 1)/n·S = S per
  // all-reduce; at efficiency e it takes S / (e·300e9) + 2 µs. Halving e adds 10 · S / 300e9.
  const std::string job = "simulate --platform " + kPlatforms +
                          "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --tp 2 --microbatches 1 --layers 2 --hidden 1024 "
                          "--heads 16 --seq 1024 --vocab 50432 --dp-comm off --format json --nccl-nvlink-efficiency ";
  const auto tp_exposed = [&](const std::string& efficiency) {
    const auto r = run_pipegrid(job + efficiency);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["ranks"][0]["exposed_comm"]["tp"].get<double>();
  };
  const double bytes = 1024.0 * 1024 * 2;
  const double full = tp_exposed("1"), half = tp_exposed("0.5");
  EXPECT_NEAR(full, 10 * (bytes / 300e9 + 2e-6), 1e-12);
  EXPECT_NEAR(half - full, 10 * bytes / 300e9, 1e-12);
  // As flows, each all-reduce is two steps of S/2 each way, each capped at e·300 GB/s: the same times.
  EXPECT_NEAR(tp_exposed("1 --tp-comm flow"), full, 1e-9);
  EXPECT_NEAR(tp_exposed("0.5 --tp-comm flow"), half, 1e-9);
}

// A CSV file of pipegrid's as rows of named fields.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    if (line.ends_with(',')) fields.emplace_back();
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string>& row = rows.emplace_back();
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
  }
  return rows;
}

TEST(SimulateCli, AnalyticTensorParallelismCountsItsBytesOnNvlink) {
  // The job of TheNcclEfficiencySlowsTheRingsInsideANode: 10 TP all-reduces of S = 1024·1024·2 bytes
  // in a ring of two GPUs, as a formula. Each member sends 2(n − 1)/n·S = S to the other per
  // all-reduce: 10 S out of gpu0's NVLink (UP) and 10 S into it (DOWN), and both members' hops cross
  // the NVSwitch: 20 S each way. No flow carries them (analytic_bytes = what they would carry).
  const std::string out = temp_dir("analytic-tp");
  const auto r = run_pipegrid("simulate --platform " + kPlatforms +
                              "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --tp 2 --microbatches 1 --layers 2 "
                              "--hidden 1024 --heads 16 --seq 1024 --vocab 50432 --dp-comm off --link-timeline --out " +
                              out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double S = 1024.0 * 1024 * 2;
  std::map<std::string, std::map<std::string, std::string>> links;
  for (auto& row : csv_rows(out + "/links.csv")) links[row["link"] + "/" + row["direction"]] = row;
  // Every link of the platform, used or not: 41 SPLITDUPLEX links, two directions each.
  EXPECT_EQ(links.size(), 82u);
  for (const auto& [name, row] : links) EXPECT_EQ(row.at("sharing_policy"), "SPLITDUPLEX") << name;
  for (const char* name : {"node0-gpu0-nvlink/UP", "node0-gpu0-nvlink/DOWN", "node0-gpu1-nvlink/UP"})
    EXPECT_NEAR(std::stod(links.at(name).at("analytic_bytes")), 10 * S, 1e-6 * S) << name;
  EXPECT_NEAR(std::stod(links.at("node0-nvswitch/UP").at("analytic_bytes")), 20 * S, 1e-6 * S);
  EXPECT_EQ(std::stod(links.at("node0-gpu2-nvlink/UP").at("bytes")), 0);  // no member of the job
  // links_timeline.csv holds every byte of links.csv (an identity: the hand computation is above).
  std::map<std::string, double> timeline;
  for (auto& row : csv_rows(out + "/links_timeline.csv")) timeline[row["link"] + "/" + row["direction"]] += std::stod(row["bytes"]);
  for (const auto& [name, row] : links)
    EXPECT_NEAR(timeline[name], std::stod(row.at("bytes")), 1e-9 * std::max(1.0, std::stod(row.at("bytes")))) << name;
}

TEST(SimulateCli, AZeroTcpWindowLetsNoFlowOutrunItsLinks) {
  // dgx-a100-1node.xml sets network/TCP-gamma 0 (no TCP-window bound). The DP all-reduce of two GPUs
  // of one node is a ring: at each step both GPUs start a flow to the other at the same instant, one
  // per direction, each over its own NVLinks (300 GB/s per direction). Each flow must take
  // bytes / 300 GB/s plus the route's 1 us of latency (two NVLink ports of 0.5 us): both directions
  // of both NVLinks are busy for bytes / 3e11 + flows × 1e-6 s. SimGrid's lazy solver used to let
  // one of the two flows run at the NVSwitch's 2.1 TB/s left over (busy 0.365 ms against 2.496 ms).
  const std::string out = temp_dir("zero-tcp-window");
  const auto r = run_pipegrid("simulate --platform " + kPlatforms +
                              "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --tp 1 --dp 2 --microbatches 1 --layers 1 "
                              "--model gpt-1.7b --nccl-nvlink-efficiency 1 --trace off --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int checked = 0;
  for (auto& row : csv_rows(out + "/links.csv")) {
    if (row["link"] != "node0-gpu0-nvlink" && row["link"] != "node0-gpu1-nvlink") continue;
    const double bytes = std::stod(row["bytes"]), flows = std::stod(row["flows"]);
    ASSERT_GT(bytes, 0) << row["link"];
    EXPECT_NEAR(std::stod(row["busy_time"]), bytes / 3e11 + flows * 1e-6, 1e-12) << row["link"] << " " << row["direction"];
    EXPECT_LE(std::stod(row["mean_utilization_busy"]), 1.0) << row["link"] << " " << row["direction"];
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(SimulateCli, AGpuFileOfTheUsersOwn) {
  // A GPU of half the A100's tensor peak and HBM with round constants: its file's [constants] price
  // the run, and its name is the calibration summary.json reports.
  const std::string dir = temp_dir("gpu-file");
  std::filesystem::create_directories(dir);
  const std::string half = dir + "/half.toml";
  std::ofstream(half) << "name = \"half\"\ngpu_models = [\"half\"]\nsms = 54\ntensor_flops = 156e12\n"
                         "hbm_bandwidth = 1.0195e12\ngemm_tiles = [[128, 128]]\n[constants]\ngemm_efficiency = 1\n"
                         "wave_seconds = 0\nmemory_efficiency = 1\nkernel_floor_seconds = 0\n";
  const std::string job = "simulate --platform " + kPlatforms +
                          "/dgx-a100-1node.xml --schedule 1f1b --pp 1 --microbatches 1 --layers 1 --hidden 1024 "
                          "--heads 16 --seq 1024 --vocab 50304 --format json --gpu-file ";
  const auto r = run_pipegrid(job + half);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto breakdown = nlohmann::json::parse(r.out)["compute_breakdown"];
  EXPECT_EQ(breakdown["gpu_name"], "half");
  EXPECT_EQ(breakdown["calibration"], "--gpu-file " + half + " [constants]");
  // The QKV GEMM, 1024 × 3072 × 1024 in 128×128 tiles: 8 × 24 = 192 tiles, 4 waves on 54 SMs, each of
  // 2·128·128·1024 FLOPs at 156e12 / 54 per SM.
  int qkv = 0;
  for (const auto& kernel : breakdown["stages"][0]["kernels"])
    if (kernel[0] == "qkv") {
      ++qkv;
      EXPECT_NEAR(kernel[12].get<double>(), 4 * 2.0 * 128 * 128 * 1024 * 54 / 156e12, 1e-15);
    }
  EXPECT_EQ(qkv, 1);
  // MFU is against the file's GPU (156 TFLOP/s), not the platform's A100 hosts (312): with no
  // recomputation the model's FLOPs are the hardware's, so MFU × 156e12 is the achieved FLOP/s.
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["mfu_peak_flops"]["flops"], 156e12);
  EXPECT_EQ(summary["mfu_peak_flops"]["precision"], "bf16");
  EXPECT_NEAR(summary["mfu"].get<double>() * 156e12, summary["tflops_per_gpu"].get<double>() * 1e12,
              1e-9 * summary["tflops_per_gpu"].get<double>() * 1e12);
  // Text that Debian's toml++ would read with undefined behaviour is refused before it parses.
  const std::string hostile = dir + "/hostile.toml";
  std::ofstream(hostile) << "sms = 1\u00e9\n";
  const auto bad = run_pipegrid(job + hostile);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("pipegrid: error: --gpu-file " + hostile + ":1:", 0), 0u) << bad.err;
}

TEST(SimulateCli, WritesTheReportsOfARun) {
  const std::string out = temp_dir("reports");
  const auto r = run_pipegrid("simulate --platform " + kPlatforms +
                              "/dgx-a100-2node.xml --schedule 1f1b --pp 4 --tp 2 --dp 2 --microbatches 8 "
                              "--model gpt-175b --layers 8 --compute-efficiency 1 --optimizer-bytes 30 --nccl-nvlink-efficiency 1 "
                              "--format json --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto summary = nlohmann::json::parse(r.out);

  // The run by hand, every FLOP at the GPU's peak (--compute-efficiency 1: the kernel model has its
  // own tests, tests/model/kernel_model_test.cc) and collectives at the links' full rate
  // (--nccl-nvlink-efficiency 1: TheNcclEfficiencySlowsTheRingsInsideANode checks the other). GPT-3's shape (b = 1, s = 2048, h = 12288, V = 51200), l = 8 layers, 2 per
  // stage, each GPU a t = 2 share; A100 312 Tflop/s, NVLink 300 GB/s and 1 µs GPU to GPU, InfiniBand
  // 25 GB/s and 3 µs node to node (4 PCIe hops of 0.25 µs, 2 IB of 1 µs). Per GPU and micro-batch:
  // a stage's forward f = 2(24bsh² + 4bs²h)/t, its backward 2f (Narayanan et al. SC21 §5.1); the LM
  // head on stage 3 adds g = 2bshV/t forward and 2g backward. Tensor parallelism all-reduces b·s·h
  // bf16 (50 MB) in a ring of two, a = S/bw + 2 × 1 µs each: 2 per layer each way, 1 more in stage 0's
  // forward (the embedding) and stage 3's backward (the head). A stage's output is the same 50 MB.
  const double b = 1, s = 2048, h = 12288, V = 51200, l = 8, t = 2, speed = 312e12;
  const double f = 2 * (24 * b * s * h * h + 4 * b * s * s * h) / t / speed;
  const double g = 2 * b * s * h * V / t / speed;
  const double act = b * s * h * 2;
  const double a = act / 300e9 + 2e-6;
  const double F0 = f + 5 * a, B0 = 2 * f + 4 * a, F12 = f + 4 * a, B12 = 2 * f + 4 * a;
  const double F3 = f + g + 4 * a, B3 = 2 * (f + g) + 5 * a;
  // Placement tp-dp-pp: stages 0 and 1 on node 0, 2 and 3 on node 1; 1 → 2 crosses the IB, from
  // rail 4 to rail 0 through the spine. The last backwards of stages 3 and 1 leave their GPU's NVLink
  // port together with the first piece of its data-parallel all-reduce (GBs): 150 GB/s each.
  const double nvlink = 1e-6 + act / 300e9, ib = 3e-6 + act / 25e9, nvlink_shared = 1e-6 + act / 150e9;
  // Stage 0's fp32 gradients, parameters 2(12h² + 13h) + Vh + sh per t, all-reduce with its replica in
  // a ring of two on NVLink (2 µs + S/bw) in Megatron's buckets of 4e7 parameters (max(4e7, 1e6·d)),
  // each started as 0B7 computes it: 54 buckets, each done before the next is ready (0.53 ms against
  // 0.9 ms of compute), so all that is left after 0B7 is the last, the remainder. Then the tied
  // embeddings with stage 3 over IB, Vh/t fp32 (6 µs + S/bw): stage 3 has long been waiting there.
  const double p0 = (2 * (12 * h * h + 13 * h) + V * h + s * h) / t, p3 = (2 * (12 * h * h + 13 * h) + V * h) / t;
  const double gradients = p0 * 4, bucket = 4e7 * 4;
  const double buckets = std::ceil(gradients / bucket);
  EXPECT_EQ(buckets, 54);
  const double dp = 2e-6 + (gradients - (buckets - 1) * bucket) / 300e9;
  const double embedding = 6e-6 + V * h / t * 4 / 25e9;
  // Then the optimizer: the gradient-norm check over the 8 GPUs of a replica (2⌈log2 8⌉ hops of the
  // 3 µs to the group's first GPU), then Adam's update, 30 bytes per parameter at 2.039 TB/s.
  const double check = 2 * 3 * 3e-6, update0 = p0 * 30 / 2.039e12, update3 = p3 * 30 / 2.039e12;
  const double update12 = 2 * (12 * h * h + 13 * h) / t * 30 / 2.039e12;
  // The critical path: 0F0 → 1F0 → 2F0 → 3F0, stage 3's 16 ops back to back, 3B7 → 2B7 → 1B7 → 0B7,
  // then stage 0's last bucket and the embedding all-reduce, the check and stage 0's update (the
  // largest). It is a chain of dependencies, so no run is shorter. None is longer: stage 3's F + B
  // outlasts the others' by 3g + a (12.6 ms), more than the transfers a loop back through any earlier
  // rank adds per micro-batch (at most 2 × 2 ms on the IB), so stage 3 never waits after 3F0; every
  // other transfer on the path is alone on its links (one flow per port and direction, a rail per GPU).
  const double makespan = F0 + nvlink + F12 + ib + F12 + nvlink + 8 * (F3 + B3) + nvlink_shared + B12 + ib + B12 +
                          nvlink_shared + B0 + dp + embedding + check + update0;
  EXPECT_NEAR(summary["makespan"].get<double>(), makespan, 1e-9 * makespan);
  EXPECT_NEAR(summary["steady_step"].get<double>(), makespan, 1e-9 * makespan);  // one step
  // Busy: 8 micro-batches of F + B, and the update; bubble fraction 1 − Σ busy / (GPUs × makespan).
  const double busy0 = 8 * 3 * f + update0, busy12 = 8 * 3 * f + update12, busy_last = 8 * 3 * (f + g) + update3;
  for (const auto& gpu : summary["gpus"])
    EXPECT_NEAR(gpu["busy"].get<double>(), gpu["pp"] == 3 ? busy_last : gpu["pp"] == 0 ? busy0 : busy12, 1e-9)
        << gpu["host"];
  const double run = summary["makespan"].get<double>();
  EXPECT_NEAR(summary["bubble_fraction"].get<double>(), 1 - (4 * busy0 + 8 * busy12 + 4 * busy_last) / (16 * run),
              1e-9);
  // No recomputation: TFLOP/s per GPU counts 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) per iteration
  // (Korthikanti et al. 2022, Appendix A; Narayanan et al.'s 96 with full recomputation), global batch
  // B = 1 × 8 micro-batches × 2 replicas = 16.
  const double B = 16;
  const double flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(summary["tflops_per_gpu"].get<double>(), flops / (16 * run * 1e12), 1e-9);
  EXPECT_EQ(summary["inputs"]["gpus"], 16);
  EXPECT_EQ(summary["ranks"].size(), 4u);
  EXPECT_EQ(summary["gpus"].size(), 16u);
  EXPECT_EQ(nlohmann::json::parse(read_file(out + "/summary.json")), summary);
  // 1F1B with 8 micro-batches on 4 ranks: 64 computations per GPU, 2 transfers per micro-batch per
  // inner boundary (3 boundaries) per (tp, dp) pipeline: 16 × 64 + 4 × 3 × 8 × 2 rows and a header.
  const std::string trace = read_file(out + "/trace.csv");
  EXPECT_TRUE(
      trace.starts_with("gpu,host,node,tp,dp,pp,track,kind,stage,microbatch,peer,bytes,start,end,chunk,direction\n"));
  const auto rows = std::count(trace.begin(), trace.end(), '\n') - 1;
  EXPECT_EQ(rows, 16 * 16 + 4 * 3 * 8 * 2 + /*tp all-reduce*/ 16 * 16 + /*dp: rank 0's buckets, one stage each else*/
                      4 * 54 + 12 + /*embedding*/ 8 + /*optimizer*/ 16);
  const auto chrome = nlohmann::json::parse(read_file(out + "/trace.json"));
  EXPECT_GT(chrome["traceEvents"].size(), 100u);
  EXPECT_TRUE(read_file(out + "/links.csv")
                  .starts_with("link,class,bandwidth,latency,sharing_policy,bytes,analytic_bytes,flows,busy_time,"
                               "mean_utilization_busy,peak_utilization,peak_start,direction\n"));
  EXPECT_FALSE(std::filesystem::exists(out + "/links_timeline.csv"));  // only with --link-timeline
}

// summary.json's layout: tp 2 × dp 2 × pp 2 over 2 DGX nodes in Megatron-Core's order, GPU k =
// t + 2d + 4r: rank 0's TP group is GPUs 0-1, its DP group 0 and 2, its PP group 0 and 4 (node 0
// holds GPUs 0-7, so every group of 8 GPUs stays in it). With dp-tp-pp, GPU k = d + 2t + 4r.
TEST(SimulateCli, SummaryShowsWhereEachGroupLands) {
  const auto layout = [](const std::string& order) {
    const auto r = run_pipegrid("simulate --platform " + kPlatforms +
                                "/dgx-a100-2node.xml --schedule 1f1b --pp 2 --tp 2 --dp 2 --microbatches 2 --model "
                                "gpt-7.5b --layers 4 --compute-efficiency 0.5 --format json --placement " + order);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["inputs"]["layout"];
  };
  const nlohmann::json megatron = layout("tp-cp-ep-dp-pp");
  EXPECT_EQ(megatron["order"], "tp-cp-ep-dp-pp");
  EXPECT_EQ(megatron["tp"]["rank0"], (nlohmann::json{"node0-gpu0", "node0-gpu1"}));
  EXPECT_EQ(megatron["dp"]["rank0"], (nlohmann::json{"node0-gpu0", "node0-gpu2"}));
  EXPECT_EQ(megatron["pp"]["rank0"], (nlohmann::json{"node0-gpu0", "node0-gpu4"}));
  EXPECT_EQ(megatron["cp"]["size"], 1);
  for (const char* kind : {"tp", "dp", "pp"}) {
    EXPECT_EQ(megatron[kind]["groups"], 4) << kind;
    EXPECT_EQ(megatron[kind]["within_node"], 4) << kind;
  }
  EXPECT_FALSE(megatron.contains("ep"));  // no expert layers
  EXPECT_EQ(layout("tp-dp-pp"), megatron);
  const nlohmann::json dp_first = layout("dp-tp-pp");
  EXPECT_EQ(dp_first["order"], "ep-dp-tp-cp-pp");  // ep right before dp, cp right after tp
  EXPECT_EQ(dp_first["tp"]["rank0"], (nlohmann::json{"node0-gpu0", "node0-gpu2"}));
  EXPECT_EQ(dp_first["dp"]["rank0"], (nlohmann::json{"node0-gpu0", "node0-gpu1"}));
}

TEST(SimulateCli, SameInputsSameBytes) {
  const std::string a = temp_dir("same-a"), b = temp_dir("same-b");
  const std::string job = "simulate --platform " + kPlatforms +
                          "/dgx-a100-2node.xml --schedule interleaved --pp 4 --tp 2 --dp 2 --microbatches 8 "
                          "--model gpt-175b --layers 16 --tp-comm flow --out ";
  ASSERT_EQ(run_pipegrid(job + a).exit_code, 0);
  ASSERT_EQ(run_pipegrid(job + b).exit_code, 0);
  for (const char* file : {"summary.json", "trace.csv", "trace.json", "links.csv"}) {
    const std::string first = read_file(a + "/" + file), second = read_file(b + "/" + file);
    EXPECT_FALSE(first.empty()) << file;
    // summary.json echoes --out, which differs between the two runs; nothing else may.
    EXPECT_EQ(first, second) << file;
  }
}

TEST(SimulateCli, ARunWithoutOutFollowsNoLinkLoadAndComputesTheSame) {
  // Without --out no links.csv is written, and the links' loads over time are not followed
  // (SimulationInput::link_load): the run with --out is the truth for everything else, step, per-GPU
  // accounts and the bytes per link class, to the last bit.
  const std::string out = temp_dir("no-link-load");
  const std::string job = "simulate --platform " + kPlatforms +
                          "/dgx-a100-2node.xml --schedule interleaved --pp 4 --tp 2 --dp 2 --microbatches 8 "
                          "--model gpt-175b --layers 16 --tp-comm analytic --dp-comm flow --format json";
  const auto without = run_pipegrid(job);
  const auto with = run_pipegrid(job + " --out " + out);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const nlohmann::json a = nlohmann::json::parse(without.out), b = nlohmann::json::parse(with.out);
  EXPECT_GT(a["makespan"].get<double>(), 0);
  EXPECT_GT(a["bytes_per_link_class"]["ib"].get<double>(), 0);  // DP and PP flows crossed the nodes
  EXPECT_GT(a["bytes_per_link_class"]["nvlink"].get<double>(), 0);  // the analytic TP rings
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_FALSE(read_file(out + "/links.csv").empty());
}

TEST(SimulateCli, BlockingCallsDeadlock1F1BWithExitCode3) {
  const std::string out = temp_dir("deadlock");
  const auto r = run_pipegrid("simulate --platform " + kStar +
                              " --schedule 1f1b --pp 2 --microbatches 4 --p2p blocking --comm-plan blocking-calls "
                              "--out " + out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "deadlock at 4.002 s: gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1B0\n"
            "  gpu0 (tp 0, dp 0, pp 0) is blocked at [0SEND_F1]\n"
            "  gpu1 (tp 0, dp 0, pp 1) is blocked at [1SEND_B0]\n"
            "fix: both sides send first and a rendezvous send waits for a receive posted later; make sends asynchronous "
            "(--p2p async), post each send with the receive it meets in one batch (batch_isend_irecv: --comm-plan "
            "megatron), or have odd ranks receive first\n"
            "wrote " + out + "/deadlock.json\n");
  const auto deadlock = nlohmann::json::parse(read_file(out + "/deadlock.json"));
  EXPECT_EQ(deadlock["cycle"].size(), 2u);
  EXPECT_EQ(deadlock["cycle"][0]["waiting_to"], "send");
  EXPECT_EQ(deadlock["cycle"][0]["peer"], "gpu1");
}

// A small model with tied embeddings (a vocabulary, p = 2) on the 4-GPU star, gradients after the
// step: gpu0 = (pp 0, dp 0), gpu1 = (pp 0, dp 1), gpu2 = (pp 1, dp 0), gpu3 = (pp 1, dp 1).
const std::string kTiedModel = "simulate --platform " + kStar +
                               " --schedule 1f1b --pp 2 --dp 2 --microbatches 2 --layers 2 --hidden 256 --heads 4 "
                               "--seq 128 --vocab 1024 --compute-efficiency 0.5 --grad-overlap off --grad-sync-order ";

TEST(SimulateCli, CrossedGradientSyncOrdersDeadlockInACycleOfCollectives) {
  // Embeddings first on gpu0 and gpu3 (pp + dp even), data-parallel first on gpu1 and gpu2: each
  // waits inside its first collective for a member that is inside its own first
  // (tests/exec/grad_sync_order_test.cc times the same cycle by hand).
  const std::string out = temp_dir("crossed");
  const auto r = run_pipegrid(kTiedModel + "crossed --out " + out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  const std::string chain =
      "gpu0 waits for gpu2 to enter the embedding all-reduce, which waits for gpu3 to enter the data-parallel "
      "all-reduce, which waits for gpu1 to enter the embedding all-reduce, which waits for gpu0 to enter the "
      "data-parallel all-reduce";
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("deadlock at [0-9.]+ s: " + chain + "\n"
                        "  gpu0 \\(tp 0, dp 0, pp 0\\) is blocked at embedding-allreduce\n"
                        "  gpu2 \\(tp 0, dp 0, pp 1\\) is blocked at dp-allreduce\n"
                        "  gpu3 \\(tp 0, dp 1, pp 1\\) is blocked at embedding-allreduce\n"
                        "  gpu1 \\(tp 0, dp 1, pp 0\\) is blocked at dp-allreduce\n"
                        "fix: ranks entered their collectives in different orders; [^\n]*; here: --grad-sync-order "
                        "megatron\n"
                        "wrote [^\n]*/deadlock.json\n")))
      << r.err;
  const auto deadlock = nlohmann::json::parse(read_file(out + "/deadlock.json"));
  EXPECT_EQ(deadlock["engine"], "executor");
  EXPECT_EQ(deadlock["chain"], chain);
  EXPECT_EQ(deadlock["hint"]["shape"], "collective-order");
  EXPECT_EQ(deadlock["cycle"].size(), 4u);
}

TEST(SimulateCli, GradientSyncOrdersWithoutACycleComplete) {
  for (const char* order : {"megatron", "embedding-first", "by-stage"}) {
    const auto r = run_pipegrid(kTiedModel + order + " --format json");
    EXPECT_EQ(r.exit_code, 0) << order << "\n" << r.err;
    if (r.exit_code == 0) {
      EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"]["options"]["grad_sync_order"], order);
    }
  }
}

TEST(SimulateCli, RendezvousUnderMegatronsPlanAndAsyncFinish) {
  for (const char* mode : {"rendezvous", "async"})
    EXPECT_EQ(run_pipegrid("simulate --platform " + kStar + " --schedule 1f1b --pp 2 --microbatches 4 --p2p " + mode)
                  .exit_code,
              0)
        << mode;
}

}  // namespace
}  // namespace pipegrid
