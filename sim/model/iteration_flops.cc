#include "sim/model/iteration_flops.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/model/layer_costs.h"

namespace pipegrid::model {
namespace {

// One sequence through the whole model: every layer (dense, or MoE with its top-k routed and its
// shared experts per token, no router) and the LM head, the attention square whole.
Flops sequence_flops(const Transformer& model, Recompute recompute) {
  Transformer one = model;
  one.micro_batch = 1;
  const MoeSpec& moe = model.moe;
  const int moe_layers = moe.enabled() ? model.layers - moe.first_dense_layers : 0;
  Flops total = static_cast<double>(model.layers - moe_layers) * recomputed(layer_flops(one), one, recompute);
  if (moe_layers > 0) {
    const Flops experts = tokens(one) * static_cast<double>(moe.top_k + moe.shared_experts) *
                          expert_flops_per_token(one);
    total += static_cast<double>(moe_layers) *
             (recomputed(attention_flops(one), one, recompute) + (recompute == Recompute::Full ? recomputed(experts) : experts));
  }
  return total + lm_head_flops(one);
}

}  // namespace

double hardware_flops_per_iteration(const Transformer& model, std::int64_t global_batch, Recompute recompute,
                                    AttentionCount attention) {
  model.validate();
  if (global_batch <= 0) throw InputError(fmt::format("--global-batch {}: must be positive", global_batch));
  double per_sequence = sequence_flops(model, recompute).total();
  if (attention == AttentionCount::Causal) {
    // Every layer has its attention core (MoE layers too), run again by either recomputation.
    Transformer one = model;
    one.micro_batch = 1;
    per_sequence -= 0.5 * model.layers * recomputed(attention_core_flops(one), one, recompute).total();
  }
  return static_cast<double>(global_batch) * per_sequence;
}

double model_flops_per_iteration(const Transformer& model, std::int64_t global_batch, AttentionCount attention) {
  return hardware_flops_per_iteration(model, global_batch, Recompute::None, attention);
}

}  // namespace pipegrid::model
