// The two engines agree on a model: a small GPT priced by the compute model of the platform's A100,
// on a network of finite bandwidth and nonzero latency where no two flows share a link (FATPIPE
// ports on a switch), the executor with --tp-comm analytic --dp-comm analytic. The contention-free
// engine's step (sim/exec/contention_free.h: per-stage op times with their TP all-reduces, each
// message as latency + bytes / bandwidth, the gradient buckets, the optimizer's check and update)
// equals SimGrid's makespan to 1e-9 relative; with mixture-of-experts layers too (the all-to-alls and
// the ETP group's all-gathers and reduce-scatters at their α-β times, --ep-comm analytic). Both take their input from the run layer's one
// resolution of a model (resolve_simulation), as simulate and schedule do. SimGrid allows one
// engine per process and both engines load the platform into one, so each runs in a child process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "sim/exec/contention_free.h"
#include "sim/exec/executor.h"
#include "sim/run/simulation_run.h"

namespace pipegrid::run {
namespace {

struct Case {
  std::string schedule;
  int pp, microbatches, chunks, tp, dp;
  P2pMode p2p = P2pMode::Async;
  bool distributed_optimizer = false;
  bool llama_layer = false;  // grouped-query attention, SwiGLU, RMSNorm, RoPE, untied, selective recomputation
  bool sequence_parallel = false;  // reduce-scatters and all-gathers instead of the TP all-reduces
  bool tp_comm_overlap = false;    // each under its GEMMs (with sequence parallelism)
  int cp = 1;                      // context parallelism: the ring's KV sends, or with
  bool cp_all_to_all = false;      // Ulysses' all-to-alls
  int ep = 0;                      // > 0: 8 experts of 512, top 2, over ep GPUs (analytic all-to-alls)
  int etp = 1;                     // expert tensor parallelism: the ETP group's all-gathers and reduce-scatters
  int zero = 0;                    // ZeRO-2 or 3 (distributed_optimizer is ZeRO-1)
  bool reshard = false;            // --fsdp-reshard-after-forward
  bool fp8 = false;                // --precision fp8, priced on the H100's file
};

// FP8 cases: the H100's kernels (its GPU file) on the same platform.
Case fp8_case(std::string schedule, int pp, int microbatches, int chunks, int tp, int dp, bool llama_layer) {
  Case c{std::move(schedule), pp, microbatches, chunks, tp, dp};
  c.llama_layer = llama_layer;
  c.sequence_parallel = tp > 1;
  c.fp8 = true;
  return c;
}

// ZeRO-2 and ZeRO-3 (FSDP) cases.
Case zero_case(std::string schedule, int pp, int microbatches, int chunks, int tp, int dp, P2pMode p2p, int zero,
               bool reshard = false, bool llama_layer = false, int cp = 1) {
  Case c{std::move(schedule), pp, microbatches, chunks, tp, dp, p2p};
  c.zero = zero;
  c.cp = cp;
  c.reshard = reshard;
  c.llama_layer = llama_layer;
  return c;
}

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.schedule << " pp " << c.pp << " m " << c.microbatches << " tp " << c.tp << " dp " << c.dp << " "
       << p2p_mode_name(c.p2p) << (c.distributed_optimizer ? " distributed optimizer" : "")
       << (c.llama_layer ? " llama layer" : "") << (c.sequence_parallel ? " sequence parallel" : "")
       << (c.tp_comm_overlap ? " tp comm overlap" : "") << " cp " << c.cp << (c.cp_all_to_all ? " all-to-all" : "")
       << (c.ep > 0 ? " ep " + std::to_string(c.ep) : "") << (c.etp > 1 ? " etp " + std::to_string(c.etp) : "")
       << (c.zero > 1 ? " zero " + std::to_string(c.zero) : "") << (c.reshard ? " reshard after forward" : "")
       << (c.fp8 ? " fp8" : "");
}

RunSpec spec_of(const Case& c) {
  RunSpec spec;
  spec.platform.file = PIPEGRID_TEST_DATA "/platforms/star-finite-16gpu.xml";
  spec.schedule.name = c.schedule;
  spec.schedule.params = {c.pp, c.microbatches, c.chunks};
  spec.parallel.tp = c.tp;
  spec.parallel.dp = c.dp;
  spec.parallel.cp = c.cp;
  spec.parallel.cp_algo = c.cp_all_to_all ? model::CpAlgo::AllToAll : model::CpAlgo::Ring;
  ModelSpec model;
  model::Transformer& small = model.transformer;
  small.name = "small";
  small.layers = 8;
  small.hidden = 512;
  small.heads = 8;
  small.seq = 1024;
  small.vocab = 8192;
  small.micro_batch = 2;
  if (c.llama_layer) {
    // Today's layer flows through the same pricing: the model's own kernels, FLOPs and bytes.
    model::Transformer& t = model.transformer;
    t.kv_heads = 2;
    t.ffn_hidden = 1408;
    t.mlp = model::Mlp::Swiglu;
    t.norm = model::Norm::RmsNorm;
    t.positions = model::Positions::Rope;
    t.linear_bias = t.qkv_bias = t.dropout = t.tied_embeddings = false;
    model.recompute = model::Recompute::Selective;
  }
  if (c.ep > 0) {
    // Megatron-Core's MoE layers (token_dispatcher.py): each TP GPU routes its s/t tokens, the ETP
    // group gathers what its members received before the experts and reduce-scatters after.
    model::MoeSpec& moe = model.transformer.moe;
    moe.experts = 8;
    moe.top_k = 2;
    moe.expert_hidden = 512;
    moe.ep = c.ep;
    moe.etp = c.etp;
    moe.first_dense_layers = 1;
    spec.comm.exec.ep_comm = sim::CommFidelity::Analytic;
  }
  model.zero = c.distributed_optimizer ? 1 : c.zero;
  model.fsdp_reshard_after_forward = c.reshard;
  model.sequence_parallel = c.sequence_parallel;
  if (c.fp8) {
    model.precision = model::ComputePrecision::Fp8;
    model.compute.gpu_file = PIPEGRID_SOURCE_DIR "/platforms/gpus/h100-sxm.toml";
  }
  model.compute.optimizer_bytes = 12;  // an update to time: fp32 master weights and Adam's two moments
  spec.model = model;
  spec.comm.exec.p2p = c.p2p;
  spec.comm.exec.tp_comm = sim::CommFidelity::Analytic;
  spec.comm.exec.dp_comm = sim::CommFidelity::Analytic;
  spec.comm.exec.nccl_nvlink_efficiency = 0.76;
  spec.comm.exec.tp_comm_overlap = c.tp_comm_overlap;
  spec.comm.exec.cp_comm = sim::CommFidelity::Analytic;
  spec.comm.exec.cp_all_to_all = c.cp_all_to_all;
  // Buckets of 1M parameters: rank 0's first stage reduces its gradients in several, launched part-way
  // through its last backward.
  spec.comm.grad_bucket_parameters = 1e6;
  return spec;
}

// Runs `work` in a child process and returns the numbers it gave, or fails the test with what it threw.
std::vector<double> in_child(const std::function<std::vector<double>()>& work) {
  std::fflush(nullptr);
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) ADD_FAILURE() << "pipe";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    int code = 0;
    try {
      const std::vector<double> numbers = work();
      const auto bytes = static_cast<ssize_t>(numbers.size() * sizeof(double));
      if (write(pipe_ends[1], numbers.data(), static_cast<std::size_t>(bytes)) != bytes) code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      code = 1;
    }
    _exit(code);
  }
  close(pipe_ends[1]);
  std::vector<double> numbers;
  double number = 0;
  while (read(pipe_ends[0], &number, sizeof number) == static_cast<ssize_t>(sizeof number)) numbers.push_back(number);
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed (its stderr says why)";
  return numbers;
}

class EnginesAgreeOnAModel : public ::testing::TestWithParam<Case> {};

TEST_P(EnginesAgreeOnAModel, OnAFiniteNetworkWithoutContention) {
  const Case& c = GetParam();
  // The estimate, and what it priced: messages on the wire, TP all-reduces, gradient reductions —
  // so that agreeing is not agreeing on nothing.
  const std::vector<double> estimate = in_child([&] {
    const ResolvedRun run = resolve_simulation(spec_of(c));
    const sim::ContentionFree cf = sim::contention_free_step(run.input);
    if (cf.step.deadlocked()) throw std::runtime_error("the contention-free engine deadlocked");
    const PricedReplica& replica = cf.job.replicas.front();
    const RankStepEnd& rank0 = replica.ranks.front();
    const CpStageComm& cp = replica.ops.stages().front().cp;
    return std::vector<double>{cf.step.step_time, replica.forward_messages.front().transfer,
                               replica.forward_messages.front().latency, replica.ops.tp_of(Op(Action{0, 0, Kind::F})),
                               static_cast<double>(rank0.reductions.size()), static_cast<double>(rank0.gathers.size()),
                               cp.kv_send + cp.q_alltoall, replica.ops.cp_of(Op(Action{0, 0, Kind::B})),
                               replica.ops.fsdp_of(Op(Action{0, 0, Kind::F}))};
  });
  const std::vector<double> simulated = in_child([&] {
    const ResolvedRun run = resolve_simulation(spec_of(c));
    const sim::SimulationResult result = sim::simulate(run.input);
    if (result.deadlock) throw std::runtime_error(result.deadlock->line);
    return std::vector<double>{result.makespan};
  });
  ASSERT_EQ(estimate.size(), 9u);
  ASSERT_EQ(simulated.size(), 1u);
  if (c.pp > 1) {  // one rank sends nothing
    EXPECT_GT(estimate[1], 0);
    EXPECT_GT(estimate[2], 0);
  }
  if (c.tp > 1) {
    EXPECT_GT(estimate[3], 0);
  }
  // Rank 0 holds the first stage: with dp 2 its gradients go in 1M-parameter buckets, and the tied
  // embeddings, where tied, are all-reduced with the last stage's.
  if (c.dp > 1) {
    EXPECT_GT(estimate[4], 2);
  }
  if ((c.distributed_optimizer || c.zero == 2) && c.dp > 1) {
    EXPECT_GT(estimate[5], 0);
  }
  // Context parallelism priced: its messages take time, and Ulysses' all-to-alls (on the critical
  // path) or, at t = 1, the ring's backward sends (KV and dKV together outlast a step) show in a B;
  // at t = 2 a ring step's attention hides them.
  if (c.cp > 1) {
    EXPECT_GT(estimate[6], 0);
    if (c.cp_all_to_all || c.tp == 1) {
      EXPECT_GT(estimate[7], 0);
    }
  }
  // ZeRO-3: stage 0's first forward waits for its first units' all-gathers; no step-end all-gather.
  if (c.zero == 3) {
    EXPECT_GT(estimate[8], 0);
    EXPECT_EQ(estimate[5], 0);
  }
  const double expected = estimate[0];
  EXPECT_NEAR(simulated[0], expected, 1e-9 * expected);
  if (c.ep > 0) {
    // The all-to-alls and the ETP group's rings were priced: without them (--ep-comm off) the step is
    // shorter.
    const std::vector<double> silent = in_child([&] {
      RunSpec spec = spec_of(c);
      spec.comm.exec.ep_comm = sim::CommFidelity::Off;
      return std::vector<double>{sim::contention_free_step(resolve_simulation(spec).input).step.step_time};
    });
    ASSERT_EQ(silent.size(), 1u);
    EXPECT_LT(silent[0], expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, EnginesAgreeOnAModel,
    ::testing::Values(Case{"1f1b", 4, 8, 0, 1, 1}, Case{"1f1b", 4, 8, 0, 2, 2}, Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Rendezvous},
                      Case{"interleaved", 4, 8, 2, 2, 1}, Case{"interleaved", 2, 6, 2, 2, 2, P2pMode::Rendezvous},
                      Case{"zb-h1", 4, 8, 0, 1, 2}, Case{"zb-h1", 4, 8, 0, 2, 2, P2pMode::Rendezvous},
                      Case{"dualpipev", 4, 10, 0, 1, 2}, Case{"dualpipev", 2, 8, 0, 2, 2},
                      Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Async, true}, Case{"zb-h1", 4, 8, 0, 1, 2, P2pMode::Async, true},
                      Case{"interleaved", 4, 8, 2, 2, 2, P2pMode::Async, false, true},
                      Case{"dualpipev", 2, 8, 0, 2, 2, P2pMode::Rendezvous, true, true},
                      // Sequence parallelism, and with it Transformer Engine's TP overlap.
                      Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Async, false, false, true},
                      Case{"zb-h1", 4, 8, 0, 2, 2, P2pMode::Rendezvous, false, false, true},
                      Case{"interleaved", 4, 8, 2, 2, 2, P2pMode::Async, true, true, true},
                      Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Async, false, false, true, true},
                      Case{"zb-h1", 4, 8, 0, 2, 2, P2pMode::Rendezvous, true, false, true, true},
                      Case{"dualpipev", 2, 8, 0, 2, 2, P2pMode::Rendezvous, false, true, true, true},
                      // Context parallelism: the ring and Ulysses' all-to-alls, with and without TP and SP;
                      // the gradients reduced over dp·cp.
                      Case{"1f1b", 4, 8, 0, 1, 1, P2pMode::Async, false, false, false, false, 2},
                      Case{"1f1b", 4, 8, 0, 1, 1, P2pMode::Async, false, false, false, false, 4},
                      Case{"zb-h1", 2, 8, 0, 2, 2, P2pMode::Rendezvous, true, false, false, false, 2},
                      Case{"1f1b", 4, 8, 0, 2, 1, P2pMode::Async, false, true, true, false, 2},
                      Case{"interleaved", 2, 8, 2, 2, 2, P2pMode::Async, false, false, true, true, 2},
                      Case{"1f1b", 4, 8, 0, 1, 1, P2pMode::Async, false, false, false, false, 4, true},
                      Case{"zb-h1", 2, 8, 0, 2, 2, P2pMode::Rendezvous, true, false, false, false, 2, true},
                      Case{"1f1b", 4, 8, 0, 2, 1, P2pMode::Async, false, false, true, false, 2, true},
                      // Mixture of experts with TP and sequence parallelism; expert tensor parallelism.
                      Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Async, false, false, true, false, 1, false, 2, 2},
                      Case{"1f1b", 4, 8, 0, 2, 2, P2pMode::Rendezvous, true, false, true, false, 1, false, 2, 1},
                      Case{"zb-h1", 4, 8, 0, 2, 2, P2pMode::Async, false, true, true, false, 1, false, 2, 2},
                      Case{"interleaved", 2, 8, 2, 2, 2, P2pMode::Async, false, false, true, true, 1, false, 2, 2},
                      Case{"1f1b", 4, 8, 0, 1, 4, P2pMode::Async, false, false, false, false, 1, false, 2, 2},
                      Case{"1f1b", 4, 8, 0, 2, 1, P2pMode::Async, false, false, true, false, 2, false, 2, 2},
                      Case{"zb-h1", 2, 8, 0, 2, 2, P2pMode::Rendezvous, false, false, true, false, 2, true, 4, 2},
                      // ZeRO-2, and ZeRO-3 (FSDP) with and without a pipeline, with and without resharding.
                      zero_case("1f1b", 4, 8, 0, 2, 2, P2pMode::Async, 2),
                      zero_case("1f1b", 4, 8, 0, 1, 2, P2pMode::Async, 3),
                      zero_case("1f1b", 4, 8, 0, 2, 2, P2pMode::Rendezvous, 3, true),
                      zero_case("interleaved", 2, 6, 2, 2, 2, P2pMode::Async, 3),
                      zero_case("interleaved", 4, 8, 2, 1, 2, P2pMode::Async, 3, true, true),
                      zero_case("zb-h1", 4, 8, 0, 1, 2, P2pMode::Rendezvous, 3, true),
                      zero_case("zb-h1", 4, 8, 0, 2, 2, P2pMode::Async, 3, false, true),
                      zero_case("dualpipev", 2, 8, 0, 1, 2, P2pMode::Rendezvous, 3, true),  // F&B pairs
                      zero_case("1f1b", 1, 4, 0, 2, 2, P2pMode::Async, 3),
                      zero_case("1f1b", 1, 4, 0, 1, 4, P2pMode::Async, 3, true, true),
                      // ZeRO-3 with context parallelism: FSDP shards over dp·cp.
                      zero_case("1f1b", 4, 8, 0, 1, 2, P2pMode::Async, 3, false, false, 2),
                      zero_case("1f1b", 1, 4, 0, 2, 1, P2pMode::Async, 3, false, true, 2),
                      // FP8 GEMMs and their casts (Transformer Engine), a GPT and a Llama layer.
                      fp8_case("1f1b", 4, 8, 0, 2, 2, false), fp8_case("interleaved", 2, 6, 2, 1, 2, true)),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      const Case& c = param_info.param;
      std::string name = c.schedule;
      std::replace(name.begin(), name.end(), '-', '_');  // gtest names: [A-Za-z0-9_]
      return name + "_p" + std::to_string(c.pp) + "_tp" + std::to_string(c.tp) + "_dp" + std::to_string(c.dp) + "_" +
             p2p_mode_name(c.p2p) + (c.distributed_optimizer ? "_zero1" : "") + (c.llama_layer ? "_llama" : "") +
             (c.sequence_parallel ? "_sp" : "") + (c.tp_comm_overlap ? "_overlap" : "") +
             (c.cp > 1 ? "_cp" + std::to_string(c.cp) + (c.cp_all_to_all ? "_a2a" : "_ring") : "") +
             (c.ep > 0 ? "_ep" + std::to_string(c.ep) : "") + (c.etp > 1 ? "_etp" + std::to_string(c.etp) : "") +
             (c.zero > 1 ? "_zero" + std::to_string(c.zero) : "") + (c.reshard ? "_reshard" : "") +
             (c.fp8 ? "_fp8" : "");
    });

}  // namespace
}  // namespace pipegrid::run
