// How a model is cut over GPUs: tensor, pipeline and data parallelism, Megatron-LM style.
#pragma once

#include <string_view>
#include <vector>

#include "common/named.h"
#include "sim/model/transformer.h"

namespace pipegrid::model {

/// Activation recomputation. `Full` is Megatron's full (per-layer) checkpointing as in the SC 2021
/// runs: each transformer layer keeps only its input and runs its forward again just before its
/// backward. `Selective` is Korthikanti et al. 2022's (Megatron's --recompute-granularity selective,
/// its default since 2022): only the attention core — scores, softmax, dropout, context — is dropped
/// and run again, the rest of the layer's activations kept. The embeddings and the LM head are never
/// recomputed.
enum class Recompute { None, Selective, Full };
inline constexpr Named<Recompute> kRecomputes[] = {
    {"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}};
inline std::string_view to_string(Recompute recompute) { return name_of<Recompute>(kRecomputes, recompute); }

/// How context parallelism runs attention. `Ring`: Megatron-Core's cp_comm_type "p2p" (Transformer
/// Engine's AttnFuncWithCPAndKVP2P): each rank keeps its queries and passes K and V around the CP
/// ring, a block of attention per step. `AllToAll`: DeepSpeed-Ulysses (TE's "a2a"): all-to-alls turn
/// the sequence-sharded Q, K, V into head-sharded ones, attention runs on whole sequences, and one
/// more all-to-all turns the output back.
enum class CpAlgo { Ring, AllToAll };
inline constexpr Named<CpAlgo> kCpAlgos[] = {{"ring", CpAlgo::Ring}, {"all-to-all", CpAlgo::AllToAll}};

/// The parallel layout of one training run (Narayanan et al., SC 2021, §2–3): t-way tensor parallelism
/// inside each layer, p pipeline ranks each holding v virtual stages (model chunks), so S = p·v stages
/// in a chain, and d data-parallel replicas of the whole pipeline: t·p·d GPUs. With `scatter_gather`
/// each of the t GPUs of a stage sends only its 1/t of the activation across a stage boundary and the
/// receivers all-gather it over NVLink (§4.1).
struct Parallelism {
  int tp = 1;      // t
  int pp = 1;      // p
  int dp = 1;      // d
  int chunks = 1;  // v, virtual stages per pipeline rank
  bool scatter_gather = false;
  Recompute recompute = Recompute::None;
  /// Allow l not to divide the S stages: every stage gets ⌊l/S⌋ layers and stages 1, 2, … one more
  /// each until the remainder is placed (stage 0, which holds the embeddings, never gets one).
  bool uneven_layers = false;
  /// Megatron-Core's --sequence-parallel (Korthikanti et al. 2022, §4.2.2): with t > 1 the norms,
  /// dropout and residuals run on s/t of the tokens, each TP all-reduce becomes a reduce-scatter
  /// after the row-parallel GEMM and an all-gather before the column-parallel one, and a stage
  /// boundary carries the sequence-sharded b·s·h/t.
  bool sequence_parallel = false;
  /// Context parallelism (Megatron-Core's --context-parallel-size): each of the cp GPUs holds s/cp
  /// tokens of every sequence; with the ring, the load-balanced causal split (2·cp chunks, rank i
  /// holding chunks i and 2cp − 1 − i) gives every rank 1/cp of the causal attention.
  int cp = 1;
  CpAlgo cp_algo = CpAlgo::Ring;
  /// --layer-split balanced or N1,N2,…: each model stage's layers, in stage order (empty: the even
  /// split, or uneven_layers'). Megatron-Core's --pipeline-model-parallel-layout sets any such split;
  /// its --decoder-first/last-pipeline-num-layers the first and last stages'.
  std::vector<int> stage_layers{};

  int num_stages() const { return pp * chunks; }
  int layers_on_stage(const Transformer& model, int stage) const;
  int first_layer_of_stage(const Transformer& model, int stage) const;
  int gpus() const { return tp * cp * pp * dp; }
  /// The GPUs a stage's gradients are reduced over and the distributed optimizer shards over:
  /// Megatron-Core's data-parallel group with context parallelism (get_data_parallel_group(
  /// with_context_parallel=True)), d·cp.
  int gradient_group_size() const { return dp * cp; }

  /// Throws InputError, one line naming the flag (`--tp`, `--pp`, `--dp`, `--chunks`, `--layers`), for
  /// a size that is not positive, a tensor-parallel size that does not divide the heads (each GPU holds
  /// whole heads, and then it divides h too) or the MLP width, or layers that do not split evenly over
  /// the S stages; and context parallelism's rules: seq % (2·cp) for the ring's causal split, heads
  /// and kv-heads % (t·cp) for all-to-all.
  void validate(const Transformer& model) const;

 private:
  void validate_context_parallel(const Transformer& model) const;
  void validate_stage_layers(const Transformer& model) const;
};

}  // namespace pipegrid::model
