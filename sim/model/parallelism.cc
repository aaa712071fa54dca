#include "sim/model/parallelism.h"

#include <fmt/format.h>

#include "schedules/input_error.h"

namespace pipegrid::model {

Recompute parse_recompute(std::string_view text) {
  if (text == "none") return Recompute::None;
  if (text == "full") return Recompute::Full;
  throw InputError(fmt::format("--recompute {}: expected none or full", text));
}

std::string_view to_string(Recompute recompute) {
  return recompute == Recompute::Full ? "full" : "none";
}

void Parallelism::validate(const Transformer& model) const {
  const auto positive = [](const char* flag, int value) {
    if (value <= 0) throw InputError(fmt::format("{} {}: must be positive", flag, value));
  };
  positive("--tp", tp);
  positive("--pp", pp);
  positive("--dp", dp);
  positive("--chunks", chunks);
  // Megatron splits attention by heads and the MLP by columns of its inner width (Shoeybi et al. 2019,
  // §3): both must split evenly over the t GPUs. Heads dividing h (Transformer::validate) and t dividing
  // the heads make t divide h.
  if (model.heads % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --heads {}", tp, model.heads));
  if (model.ffn() % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --ffn-hidden {}", tp, model.ffn()));
  if (model.layers % num_stages() != 0)
    throw InputError(fmt::format("--layers {}: must split evenly over {} stages (--pp {} × --chunks {})",
                                 model.layers, num_stages(), pp, chunks));
}

}  // namespace pipegrid::model
