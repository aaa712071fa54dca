#include "sim/model/parallelism.h"

#include <fmt/format.h>

#include "common/input_error.h"

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
  if (model.moe.enabled() && tp != 1)
    throw InputError(fmt::format("--tp {}: mixture-of-experts layers run with --tp 1 here (expert parallelism "
                                 "instead, as DeepSeek-V3 does)", tp));
  if (model.ffn() % tp != 0)
    throw InputError(fmt::format("--tp {}: must divide --ffn-hidden {}", tp, model.ffn()));
  if (uneven_layers && model.layers < num_stages())
    throw InputError(fmt::format("--layers {}: fewer than the {} stages (--pp {} × --chunks {})", model.layers,
                                 num_stages(), pp, chunks));
  if (!uneven_layers && model.layers % num_stages() != 0)
    throw InputError(fmt::format("--layers {}: must split evenly over {} stages (--pp {} × --chunks {})",
                                 model.layers, num_stages(), pp, chunks));
}

int Parallelism::layers_on_stage(const Transformer& model, int stage) const {
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
