#include "sim/model/stage_cost.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"

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
  const bool full_recompute = par.recompute == Recompute::Full;
  const Flops layer = recomputed(layer_flops(model), model, par.recompute);
  const MoeSpec& moe = model.moe;
  const Flops moe_layer_rest = recomputed(attention_flops(model) + router_flops(model), model, par.recompute);
  const Flops expert_token = full_recompute ? recomputed(expert_flops_per_token(model)) : expert_flops_per_token(model);
  // One micro-batch's hidden states, b·s·h elements: what crosses a stage boundary and what every
  // tensor-parallel all-reduce sums (Narayanan et al., §4.1 and §3.3).
  // With context parallelism a GPU holds s/cp of the tokens: its boundary and TP tensors are ÷ cp.
  const int cp = par.cp;
  const std::int64_t local_tokens = static_cast<std::int64_t>(model.micro_batch) * (model.seq / cp);
  const std::int64_t hidden_states = local_tokens * model.hidden * precision.activation_bytes;
  // Sequence parallelism sends the sequence-sharded tensor, as scatter-gather does.
  const bool sp = par.sequence_parallel && t > 1;
  const std::int64_t p2p_bytes = par.scatter_gather || sp ? hidden_states / t : hidden_states;
  // With tied embeddings the last stage holds its own copy of the word embeddings unless it is also
  // the first stage.
  const bool lm_head_copy = !model.tied_embeddings || num_stages > 1;

  std::vector<StageCost> costs(static_cast<std::size_t>(num_stages));
  for (int s = 0; s < num_stages; ++s) {
    StageCost& c = costs[static_cast<std::size_t>(s)];
    c.stage = s;
    c.layers = par.layers_on_stage(model, s);
    c.has_embedding = s == 0;
    c.has_lm_head = s == num_stages - 1;
    const int first_layer = par.first_layer_of_stage(model, s);
    const int moe_layers =
        moe.enabled() ? std::max(0, first_layer + c.layers - std::max(first_layer, moe.first_dense_layers)) : 0;
    const int dense_layers = c.layers - moe_layers;

    Flops whole = static_cast<double>(dense_layers) * layer + static_cast<double>(moe_layers) * moe_layer_rest;
    if (c.has_lm_head) whole += lm_head_flops(model);
    std::int64_t parameters = dense_layers * layer_parameters(model) + moe_layers * attention_parameters(model);
    std::int64_t routed = 0;  // this GPU's routed experts: ÷ etp, all-reduced over the expert-data-parallel ring
    if (moe_layers > 0) {
      // Megatron-Core's MoEAlltoAllTokenDispatcher (token_dispatcher.py): the GPU routes its own
      // tokens — its s/(cp·t) sequence shard under CP and TP — and its experts, a 1/etp column slice of E/ep
      // experts, see every token its ETP group received (all-gathered after the all-to-all).
      MoeStageCost& m = c.moe;
      m.moe_layers = moe_layers;
      m.etp = moe.etp;
      m.non_expert = (1.0 / (t * cp)) * whole;
      m.shared_experts = (static_cast<double>(moe_layers * moe.shared_experts) * tokens(model) / (t * cp)) * expert_token;
      m.routed_per_assignment = (static_cast<double>(moe_layers) / moe.etp) * expert_token;
      m.dispatch_bytes_per_assignment = static_cast<double>(moe_layers) * model.hidden * moe.dispatch_bytes;
      m.combine_bytes_per_assignment = static_cast<double>(moe_layers) * model.hidden * moe.combine_bytes;
      m.tokens = local_tokens / (sp ? t : 1);
      m.assignments = static_cast<double>(m.tokens) * moe.top_k * moe.etp;
      // What a GPU computes on average (uniform routing): the micro-batch's T·k assignments' worth of
      // experts, ÷ t·cp like the rest.
      whole += static_cast<double>(moe_layers * moe.shared_experts) * tokens(model) * expert_token +
               tokens(model) * moe.top_k * (static_cast<double>(moe_layers) * expert_token);
      parameters += moe_layers * moe.shared_experts * expert_parameters(model);
      routed = moe_layers * (moe.experts / moe.ep) * expert_parameters(model) / moe.etp;
      // Megatron-Core's expert-data-parallel group: the GPUs of a stage are etp × ep × edp.
      c.routed_parameters = routed;
      // (The run checks that ep·etp divides the stage's GPUs, placement.cc; a caller of the model alone
      // that breaks it gets at least 1.)
      c.expert_data_parallel = std::max(1, t * cp * par.dp / (moe.ep * moe.etp));
      if (c.expert_data_parallel > 1) c.expert_dp_gradient_bytes = routed * precision.gradient_bytes;
    }
    c.flops = (1.0 / (t * cp)) * whole;

    if (c.has_embedding) parameters += word_embedding_parameters(model) + position_embedding_parameters(model);
    if (c.has_lm_head && lm_head_copy) parameters += word_embedding_parameters(model);
    // What Megatron replicates over the TP GPUs (norms, MLA's down-projections) is counted 1/t too;
    // a count that does not divide (a head width of its own) rounds up.
    c.parameters = (parameters + t - 1) / t + routed;
    c.layer_parameters = (layer_parameters(model) + t - 1) / t;

    c.send_forward_bytes = c.has_lm_head ? 0 : p2p_bytes;
    c.send_backward_bytes = c.has_embedding ? 0 : p2p_bytes;

    if (t > 1) c.tp_allreduce_bytes = hidden_states;
    const int recomputed_layers = c.layers * (full_recompute ? 2 : 1);
    if (t > 1 && !sp) {
      c.tp_allreduces_per_forward = 2 * c.layers + (c.has_embedding ? 1 : 0);
      c.tp_allreduces_per_backward = 2 * recomputed_layers + (c.has_lm_head ? 1 : 0);
    } else if (sp) {
      // Megatron-Core with --sequence-parallel: per layer forward, an all-gather before the QKV and
      // FC1 GEMMs and a reduce-scatter after the projection and FC2; backward the conjugates (a
      // reduce-scatter of the column GEMMs' input gradients, an all-gather of the row GEMMs' output
      // gradients) plus an all-gather of each column GEMM's sharded input for its weight gradient
      // (layers.py LinearWithGradAccumulationAndAsyncCommunication.backward). The embedding's
      // output is reduce-scattered (its backward all-gathers), the LM head's input all-gathered
      // (its backward gathers it again for the weight gradient and reduce-scatters the input's). A
      // full recomputation runs the layer's forward ones again. An MoE layer has the attention's pair
      // and the shared experts' (SharedExpertMLP gathers its input and reduce-scatters its output);
      // its routed experts take the sequence shard as it is (their all-gathers are the ETP group's).
      const int column_row_pairs = 2 * dense_layers + moe_layers * (1 + (moe.shared_experts > 0 ? 1 : 0));
      c.tp_all_gathers_per_forward = column_row_pairs + (c.has_lm_head ? 1 : 0);
      c.tp_reduce_scatters_per_forward = column_row_pairs + (c.has_embedding ? 1 : 0);
      c.tp_all_gathers_per_backward =
          2 * column_row_pairs + (full_recompute ? column_row_pairs : 0) + (c.has_embedding ? 1 : 0) + (c.has_lm_head ? 1 : 0);
      c.tp_reduce_scatters_per_backward = column_row_pairs + (full_recompute ? column_row_pairs : 0) + (c.has_lm_head ? 1 : 0);
      // Of the backward's, each column GEMM's (the LM head's too) re-gather and input-gradient
      // reduce-scatter are issued async under its dgrad and wgrad GEMMs (tp_op_cost.h).
      c.tp_native_pairs_backward = column_row_pairs + (c.has_lm_head ? 1 : 0);
    }
    if (cp > 1) {
      c.cp_forward_layers = c.cp_backward_layers = c.layers;
      c.cp_recomputed_layers = par.recompute == Recompute::None ? 0 : c.layers;
      // GQA-aware: the g key-value heads' K and V (MLA's are per query head), split over t.
      const double keys = model.mla.enabled() ? model.query_width() : double(model.query_groups()) * model.head_width();
      const double values = model.mla.enabled() ? model.value_width() : keys;
      const double tokens_here = static_cast<double>(local_tokens);
      c.cp_kv_bytes = static_cast<std::int64_t>(tokens_here * (keys + values) / t * precision.activation_bytes);
      c.cp_q_bytes = static_cast<std::int64_t>(tokens_here * model.query_width() / t * precision.activation_bytes);
    }
    // Reduced over every GPU holding the model stage: its data-parallel replicas and, in DualPipe, the
    // other copy too — so even with one replica (a ring of one reduces nothing: gradient_plan.cc).
    c.dp_gradient_bytes = (c.parameters - routed) * precision.gradient_bytes;
    c.dp_parameter_bytes = (c.parameters - routed) * 2;
    if (model.tied_embeddings && par.pp > 1 && (c.has_embedding || c.has_lm_head))
      c.embedding_allreduce_bytes = word_embedding_parameters(model) / t * precision.gradient_bytes;
  }
  return costs;
}

}  // namespace pipegrid::model
