#include "sim/model/iteration_flops.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/model/layer_costs.h"

namespace pipegrid::model {

double hardware_flops_per_iteration(const Transformer& model, std::int64_t global_batch, Recompute recompute) {
  model.validate();
  if (global_batch <= 0) throw InputError(fmt::format("--global-batch {}: must be positive", global_batch));
  Transformer one_sequence = model;
  one_sequence.micro_batch = 1;
  const Flops layer = layer_flops(one_sequence);
  const Flops per_sequence = static_cast<double>(model.layers) *
                                 (recompute == Recompute::Full ? recomputed(layer) : layer) +
                             lm_head_flops(one_sequence);
  return static_cast<double>(global_batch) * per_sequence.total();
}

double model_flops_per_iteration(const Transformer& model, std::int64_t global_batch) {
  return hardware_flops_per_iteration(model, global_batch, Recompute::None);
}

}  // namespace pipegrid::model
