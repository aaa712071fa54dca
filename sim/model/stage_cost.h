// What the simulator charges one GPU of each virtual stage: FLOPs per action, parameters, and the
// bytes of every transfer and collective (Narayanan et al., SC 2021).
#pragma once

#include <cstdint>
#include <vector>

#include "common/named.h"
#include "sim/model/layer_costs.h"
#include "sim/model/parallelism.h"
#include "sim/model/transformer.h"

namespace pipegrid::model {

/// Bytes per element on the wire. Activations and their gradients travel in bf16 (2 bytes); weight
/// gradients are reduced in fp32 (4 bytes) because Megatron accumulates a bf16 model's gradients in
/// fp32 main-gradient buffers and all-reduces those.
/// What the linear layers' GEMMs compute in (--precision). `Fp8` is Transformer Engine's
/// fp8_autocast as Megatron-Core runs it: the weight GEMMs (F, dgrad, wgrad; dense, experts) on FP8
/// tensor cores, the attention core, LM head, router and everything else in bf16. Gradients and
/// activations on the wire stay bf16 (TE's FP8 tensors never leave the GEMMs' own modules).
enum class ComputePrecision { Bf16, Fp8 };
inline constexpr Named<ComputePrecision> kComputePrecisions[] = {{"bf16", ComputePrecision::Bf16},
                                                                 {"fp8", ComputePrecision::Fp8}};

struct Precision {
  int activation_bytes = 2;
  int gradient_bytes = 4;
  ComputePrecision compute = ComputePrecision::Bf16;

  /// Throws InputError `--activation-bytes N: must be positive` (or `--gradient-bytes`).
  void validate() const;
};

/// The mixture-of-experts part of a stage, per micro-batch, for one GPU: the four phases of a chunk —
/// attention, dispatch, experts, combine (DeepSeek-V3 report, §3.2.1) — as FLOPs and bytes per token,
/// since how many tokens reach a GPU's experts depends on the routing (moe.h), which the executor
/// applies. The GPU owns T tokens: b·s, or its s/t of them with sequence parallelism (Megatron-Core's
/// MoEAlltoAllTokenDispatcher takes the TP GPU's sequence shard). With expert tensor parallelism its
/// experts are a 1/etp column slice, and the tokens its ETP group's members received are all-gathered
/// before them (and the results reduce-scattered after): it processes etp times its own receipts.
struct MoeStageCost {
  int moe_layers = 0;
  int etp = 1;                    // expert tensor parallelism: the ETP group's size
  Flops non_expert;               // attention of every layer, dense MLPs, the LM head: the "attention" phase (÷ t)
  Flops shared_experts;           // on the micro-batch's b·s tokens, their width ÷ t
  Flops routed_per_assignment;    // one token through one routed expert of every MoE layer, its width ÷ etp
  double dispatch_bytes_per_assignment = 0;  // h elements per MoE layer, each way
  double combine_bytes_per_assignment = 0;
  std::int64_t tokens = 0;        // T the GPU owns: b·s, ÷ t with sequence parallelism
  double assignments = 0;         // what its experts process on average: T·k·etp
};

/// The cost of virtual stage `stage` for one of its t tensor-parallel GPUs (Narayanan et al., SC 2021).
/// Stage s holds layers [s·l/S, (s+1)·l/S), stage 0 the embeddings too, stage S − 1 the LM head. FLOPs
/// and parameters are the stage's ÷ t, what Megatron replicates counted 1/t as well; transfers are per
/// micro-batch, ÷ t with scatter/gather; with context parallelism every FLOP and activation is the
/// GPU's s/cp tokens' (÷ cp, the load-balanced ring giving each rank 1/cp of the causal attention); TP all-reduces are 2 per layer each way (Shoeybi et al. 2019,
/// §3), plus those of the embeddings, LM head and recomputation; with sequence parallelism each becomes a
/// reduce-scatter and an all-gather (stage_cost.cc says which). Over one GPU: 0 bytes or 0 calls.
struct StageCost {
  int stage = 0;
  int layers = 0;              // transformer layers on this stage, l / S
  bool has_embedding = false;  // stage 0
  bool has_lm_head = false;    // stage S − 1
  Flops flops;                 // one micro-batch, this GPU
  std::int64_t parameters = 0;  // this GPU
  // Of `parameters`, this GPU's routed experts (E/ep of them, ÷ etp) and how many GPUs hold the same
  // ones: the expert-data-parallel group, t·cp·d / (ep·etp), which their gradients are reduced over and
  // the distributed optimizer shards them over (the rest: Parallelism::gradient_group_size).
  std::int64_t routed_parameters = 0;
  int expert_data_parallel = 1;
  std::int64_t layer_parameters = 0;  // one of its dense layers on this GPU (÷ t, rounded up): ZeRO-3's block
  std::int64_t send_forward_bytes = 0;
  std::int64_t send_backward_bytes = 0;
  std::int64_t tp_allreduce_bytes = 0;  // S = b·s·h: what an all-reduce sums, a reduce-scatter splits, an all-gather joins
  int tp_allreduces_per_forward = 0;
  int tp_allreduces_per_backward = 0;
  // Sequence parallelism (Megatron-Core): each all-reduce's two halves, as rings of S (n − 1 steps of
  // S / t each).
  int tp_reduce_scatters_per_forward = 0;
  int tp_reduce_scatters_per_backward = 0;
  int tp_all_gathers_per_forward = 0;
  int tp_all_gathers_per_backward = 0;
  // Of the backward's, the column-parallel GEMMs' re-gather and reduce-scatter pairs that Megatron-Core
  // issues async under their dgrad and wgrad GEMMs (one of each per column GEMM).
  int tp_native_pairs_backward = 0;
  // Context parallelism, per micro-batch (zero with cp = 1). The ring (TE's AttnFuncWithCPAndKVP2P)
  // sends `cp_kv_bytes`, K and V of the GPU's s/cp tokens, to the next CP rank: cp − 1 times per
  // layer forward; backward cp times, KV, then KV + dKV (cp − 2 times), then dKV. All-to-all
  // (Ulysses) runs 4 per layer forward (Q, K, V, O) and 4 backward (dO, dQ, dK, dV), each of the
  // GPU's tensor: `cp_q_bytes` for Q, dQ, O, dO, `cp_kv_bytes` / 2 for K, V, dK, dV. A recomputed
  // attention (selective or full) runs its forward's again in the backward.
  int cp_forward_layers = 0;     // layers whose attention forward runs in F
  int cp_backward_layers = 0;    // layers whose attention backward runs in B or I
  int cp_recomputed_layers = 0;  // layers whose attention forward runs again in B or I
  std::int64_t cp_kv_bytes = 0;
  std::int64_t cp_q_bytes = 0;
  std::int64_t dp_gradient_bytes = 0;          // parameters × gradient bytes (but routed experts'), once per step
  std::int64_t dp_parameter_bytes = 0;         // the same parameters in bf16: the distributed optimizer's all-gather
  std::int64_t expert_dp_gradient_bytes = 0;   // routed experts' share, all-reduced over the t·d / (ep·etp) replicas
  MoeStageCost moe;                            // moe.moe_layers == 0: a dense stage
  std::int64_t embedding_allreduce_bytes = 0;  // V·h / t × gradient bytes, tied embeddings and p > 1
};

/// The S = p·v stage costs, in stage order. Validates the model, the layout and the precision first
/// (InputError, see their `validate`).
std::vector<StageCost> stage_costs(const Transformer& model, const Parallelism& parallelism,
                                   const Precision& precision = {});

}  // namespace pipegrid::model
