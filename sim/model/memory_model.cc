#include "sim/model/memory_model.h"

namespace pipegrid::model {

ActivationBytes activation_bytes(const Transformer& m, const Parallelism& par, const StageCost& stage,
                                 bool flash_attention) {
  const double s = m.seq, b = m.micro_batch, h = m.hidden, a = m.heads, t = par.tp;
  const double scores = flash_attention ? 0 : 5 * a * s * s * b / t;
  const double per_layer_full = s * b * h * (10 + 24 / t) + scores;
  const double per_layer = par.recompute == Recompute::Full ? 2 * s * b * h : per_layer_full;
  const double kept_per_layer = s * b * h * (4 + 10 / t);
  ActivationBytes bytes;
  bytes.per_microbatch = stage.layers * per_layer;
  bytes.kept_for_weight_gradient = stage.layers * kept_per_layer;
  if (stage.has_lm_head) bytes.per_microbatch += 4 * s * b * m.vocab / t;
  if (stage.has_embedding) bytes.per_microbatch += s * b * h;
  if (bytes.kept_for_weight_gradient > bytes.per_microbatch) bytes.kept_for_weight_gradient = bytes.per_microbatch;
  return bytes;
}

StaticMemory static_memory(std::int64_t parameters, const Precision& precision, int dp, bool distributed_optimizer) {
  const double n = static_cast<double>(parameters);
  StaticMemory memory;
  memory.weights = 2 * n;
  memory.gradients = precision.gradient_bytes * n;
  memory.optimizer = 12 * n / (distributed_optimizer ? dp : 1);
  return memory;
}

}  // namespace pipegrid::model
