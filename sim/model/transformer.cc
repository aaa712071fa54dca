#include "sim/model/transformer.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/model/layer_costs.h"

namespace pipegrid::model {

double Transformer::query_width() const {
  return static_cast<double>(heads) * (mla.enabled() ? mla.qk_head_dim() : head_width());
}

double Transformer::value_width() const {
  return static_cast<double>(heads) * (mla.enabled() ? mla.v_head_dim : head_width());
}

bool Transformer::classic_attention() const {
  return !mla.enabled() && query_groups() == heads && head_width() * heads == hidden;
}

void Transformer::validate() const {
  const auto positive = [](const char* flag, int value) {
    if (value <= 0) throw InputError(fmt::format("{} {}: must be positive", flag, value));
  };
  positive("--layers", layers);
  positive("--hidden", hidden);
  positive("--heads", heads);
  positive("--seq", seq);
  positive("--vocab", vocab);
  positive("--micro-batch", micro_batch);
  if (ffn_hidden) positive("--ffn-hidden", *ffn_hidden);
  if (head_dim) positive("--head-dim", *head_dim);
  // Without a head width of its own each head is h / a wide (Megatron's kv_channels default).
  if (!head_dim && !mla.enabled() && hidden % heads != 0)
    throw InputError(fmt::format("--heads {}: must divide --hidden {} (or give --head-dim)", heads, hidden));
  if (kv_heads) {
    positive("--kv-heads", *kv_heads);
    // Each key-value head serves heads / g query heads (Megatron-Core attention.py: num_query_groups).
    if (heads % *kv_heads != 0)
      throw InputError(fmt::format("--kv-heads {}: must divide --heads {}", *kv_heads, heads));
  }
  const bool any_mla = mla.q_lora_rank != 0 || mla.kv_lora_rank != 0 || mla.qk_rope_head_dim != 0 ||
                       mla.qk_nope_head_dim != 0 || mla.v_head_dim != 0;
  if (any_mla) {
    // multi_latent_attention.py needs the latent and both head widths; q_lora_rank 0 is "no query
    // compression" (DeepSeek-V2-Lite), so it may be 0 but not negative.
    positive("--kv-lora-rank", mla.kv_lora_rank);
    positive("--qk-nope-head-dim", mla.qk_nope_head_dim);
    positive("--v-head-dim", mla.v_head_dim);
    if (mla.qk_rope_head_dim < 0)
      throw InputError(fmt::format("--qk-rope-head-dim {}: must not be negative", mla.qk_rope_head_dim));
    if (mla.q_lora_rank < 0)
      throw InputError(fmt::format("--q-lora-rank {}: must not be negative (0: queries not compressed)",
                                   mla.q_lora_rank));
    if (kv_heads && *kv_heads != heads)
      throw InputError(fmt::format("--kv-heads {}: multi-head latent attention has one key and value per query "
                                   "head; leave --kv-heads out with --kv-lora-rank",
                                   *kv_heads));
    if (head_dim)
      throw InputError(fmt::format("--head-dim {}: multi-head latent attention sets its head widths with "
                                   "--qk-nope-head-dim, --qk-rope-head-dim and --v-head-dim",
                                   *head_dim));
  }
  moe.validate(layers);
  // Parameters are counted in 64-bit integers (layer_costs.h); sizes each within its flag's range can
  // still multiply past them (10^5 layers of 65 536 experts of width 2^24), so the whole is bounded.
  const double per_layer = attention_weight_macs(*this) + mlp_weight_macs(*this, ffn()) +
                           (static_cast<double>(moe.experts) + moe.shared_experts) * 3.0 * hidden * moe.expert_hidden +
                           static_cast<double>(moe.experts) * hidden;
  const double parameters = layers * per_layer + 2.0 * (static_cast<double>(vocab) + seq) * hidden;
  if (parameters > kMaxParameters)
    throw InputError(fmt::format("--layers {} --hidden {}: a model of {:.3g} parameters; pipegrid counts up to {:g}",
                                 layers, hidden, parameters, kMaxParameters));
}

}  // namespace pipegrid::model
