#include "sim/model/stage_cost.h"

#include <cassert>
#include <fmt/format.h>

#include "schedules/input_error.h"

namespace pipegrid::model {

void Precision::validate() const {
  if (activation_bytes <= 0)
    throw InputError(fmt::format("--activation-bytes {}: must be positive", activation_bytes));
  if (gradient_bytes <= 0)
    throw InputError(fmt::format("--gradient-bytes {}: must be positive", gradient_bytes));
}

std::vector<StageCost> stage_costs(const Transformer& model, const Parallelism& par, const Precision& precision) {
  model.validate();
  par.validate(model);
  precision.validate();

  const int num_stages = par.num_stages();
  const int t = par.tp;
  const int layers_per_stage = model.layers / num_stages;
  const bool full_recompute = par.recompute == Recompute::Full;
  const Flops layer = full_recompute ? recomputed(layer_flops(model)) : layer_flops(model);
  // One micro-batch's hidden states, b·s·h elements: what crosses a stage boundary and what every
  // tensor-parallel all-reduce sums (Narayanan et al., §4.1 and §3.3).
  const std::int64_t hidden_states =
      static_cast<std::int64_t>(model.micro_batch) * model.seq * model.hidden * precision.activation_bytes;
  const std::int64_t p2p_bytes = par.scatter_gather ? hidden_states / t : hidden_states;
  // With tied embeddings the last stage holds its own copy of the word embeddings unless it is also
  // the first stage.
  const bool lm_head_copy = !model.tied_embeddings || num_stages > 1;

  std::vector<StageCost> costs(static_cast<std::size_t>(num_stages));
  for (int s = 0; s < num_stages; ++s) {
    StageCost& c = costs[static_cast<std::size_t>(s)];
    c.stage = s;
    c.layers = layers_per_stage;
    c.has_embedding = s == 0;
    c.has_lm_head = s == num_stages - 1;

    Flops whole = static_cast<double>(layers_per_stage) * layer;
    if (c.has_lm_head) whole += lm_head_flops(model);
    c.flops = (1.0 / t) * whole;

    std::int64_t parameters = layers_per_stage * layer_parameters(model);
    if (c.has_embedding) parameters += word_embedding_parameters(model) + position_embedding_parameters(model);
    if (c.has_lm_head && lm_head_copy) parameters += word_embedding_parameters(model);
    assert(parameters % t == 0);  // t divides h and ffn (Parallelism::validate), so every term
    c.parameters = parameters / t;

    c.send_forward_bytes = c.has_lm_head ? 0 : p2p_bytes;
    c.send_backward_bytes = c.has_embedding ? 0 : p2p_bytes;

    if (t > 1) {
      c.tp_allreduce_bytes = hidden_states;
      c.tp_allreduces_per_forward = 2 * layers_per_stage + (c.has_embedding ? 1 : 0);
      c.tp_allreduces_per_backward =
          2 * layers_per_stage * (full_recompute ? 2 : 1) + (c.has_lm_head ? 1 : 0);
    }
    if (par.dp > 1) c.dp_gradient_bytes = c.parameters * precision.gradient_bytes;
    if (model.tied_embeddings && par.pp > 1 && (c.has_embedding || c.has_lm_head))
      c.embedding_allreduce_bytes = word_embedding_parameters(model) / t * precision.gradient_bytes;
  }
  return costs;
}

}  // namespace pipegrid::model
