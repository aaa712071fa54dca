#include "sim/model/parallelism.h"

#include <fmt/format.h>
#include <stdexcept>

#include "common/input_error.h"

namespace pipegrid::model {

void Parallelism::validate(const Transformer& model) const {
  // The option schema holds the sizes to at least 1: a caller past it that breaks them is a bug.
  if (tp < 1 || pp < 1 || dp < 1 || chunks < 1 || cp < 1)
    throw std::invalid_argument(fmt::format("Parallelism: tp {}, pp {}, dp {}, chunks {}, cp {}", tp, pp, dp, chunks, cp));
  // Megatron splits attention by heads and the MLP by columns of its inner width (Shoeybi et al. 2019,
  // §3): both must split evenly over the t GPUs. Heads dividing h (Transformer::validate) and t dividing
  // the heads make t divide h.
  if (model.heads % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --heads {}", tp, model.heads));
  // Megatron-Core splits the key-value heads over the TP ranks too (attention.py:
  // divide(num_query_groups, world_size)), so t must divide them: t > g is refused there, not replicated.
  if (!model.mla.enabled() && model.query_groups() % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --kv-heads {} (Megatron-Core splits the key-value heads "
                                 "over the tensor-parallel GPUs)",
                                 tp, model.query_groups()));
  if (model.moe.enabled() && tp > 1 && !sequence_parallel)
    // Megatron-Core's MoELayer refuses it ("During training, performance may degrade if MoE and tensor
    // parallelism are enabled without also enabling sequence parallelism"): its all-to-all dispatcher
    // takes each TP GPU's s/t tokens.
    throw InputError(fmt::format("--tp {}: mixture-of-experts layers with --tp > 1 need --sequence-parallel "
                                 "(Megatron-Core refuses MoE with tensor parallelism without it)",
                                 tp));
  validate_context_parallel(model);
  if (model.ffn() % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --ffn-hidden {}", tp, model.ffn()));
  // Megatron-Core splits the sequence evenly over the TP ranks (sequence_parallel: seq_length % tp).
  if (sequence_parallel && tp > 1 && cp == 1 && model.seq % tp != 0)
    throw InputError(fmt::format("--sequence-parallel: --tp {} must divide --seq {} (each TP GPU holds s/t tokens)",
                                 tp, model.seq));
  if (!stage_layers.empty()) {
    validate_stage_layers(model);
    return;
  }
  if (uneven_layers && model.layers < num_stages())
    throw InputError(fmt::format("--layers {}: fewer than the {} stages (--pp {} × --chunks {})", model.layers,
                                 num_stages(), pp, chunks));
  if (!uneven_layers && model.layers % num_stages() != 0)
    throw InputError(fmt::format("--layers {}: must split evenly over {} stages (--pp {} × --chunks {})",
                                 model.layers, num_stages(), pp, chunks));
}

void Parallelism::validate_context_parallel(const Transformer& model) const {
  if (cp == 1) return;
  if (cp_algo == CpAlgo::Ring && model.seq % (2 * cp) != 0)
    // TE's load-balanced causal split (get_batch_on_this_cp_rank): 2·cp equal chunks of the sequence.
    throw InputError(fmt::format("--cp {}: 2·cp = {} must divide --seq {} (the ring's load-balanced causal split "
                                 "cuts each sequence into 2·cp chunks)",
                                 cp, 2 * cp, model.seq));
  if (cp_algo == CpAlgo::AllToAll) {
    // Ulysses re-shards Q, K and V by heads over the CP GPUs, on top of TP's split.
    if (model.heads % (tp * cp) != 0)
      throw InputError(fmt::format("--cp-algo all-to-all: tp·cp = {} must divide --heads {} (each GPU attends with "
                                   "whole heads over the whole sequence)",
                                   tp * cp, model.heads));
    if (!model.mla.enabled() && model.query_groups() % (tp * cp) != 0)
      throw InputError(fmt::format("--cp-algo all-to-all: tp·cp = {} must divide --kv-heads {} (the key-value heads "
                                   "are re-sharded by heads too)",
                                   tp * cp, model.query_groups()));
    if (model.seq % cp != 0)
      throw InputError(fmt::format("--cp {}: must divide --seq {} (each CP GPU holds s/cp tokens)", cp, model.seq));
  }
  // With sequence parallelism too, the TP GPUs split the CP rank's s/cp tokens (Megatron-Core: seq % (tp·cp)).
  if (sequence_parallel && tp > 1 && model.seq % (tp * cp) != 0)
    throw InputError(fmt::format("--sequence-parallel: tp·cp = {} must divide --seq {} (each GPU holds s/(t·cp) tokens)",
                                 tp * cp, model.seq));
}

void Parallelism::validate_stage_layers(const Transformer& model) const {
  if (static_cast<int>(stage_layers.size()) != num_stages())
    throw InputError(fmt::format("--layer-split: {} stages given, the job has {} (--pp {} × --chunks {})",
                                 stage_layers.size(), num_stages(), pp, chunks));
  int sum = 0;
  for (std::size_t s = 0; s < stage_layers.size(); ++s) {
    if (stage_layers[s] < 1)
      throw InputError(fmt::format("--layer-split: stage {} has {} layers; every stage needs at least 1", s, stage_layers[s]));
    sum += stage_layers[s];
  }
  if (sum != model.layers)
    throw InputError(fmt::format("--layer-split: the stages' layers add up to {}, the model has {} (--layers)", sum, model.layers));
}

int Parallelism::layers_on_stage(const Transformer& model, int stage) const {
  if (!stage_layers.empty()) return stage_layers[stage];
  const int base = model.layers / num_stages(), extra = model.layers % num_stages();
  if (!uneven_layers) return base;
  // The remainder goes to stages 1 … extra; with extra = S − 1 to every stage but the first.
  return base + (stage >= 1 && stage <= extra ? 1 : 0);
}

int Parallelism::first_layer_of_stage(const Transformer& model, int stage) const {
  int first = 0;
  for (int s = 0; s < stage; ++s) first += layers_on_stage(model, s);
  return first;
}

}  // namespace pipegrid::model
