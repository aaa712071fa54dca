#include "sim/model/transformer.h"

#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid::model {

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
  if (hidden % heads != 0)
    throw InputError(fmt::format("--heads {}: must divide --hidden {}", heads, hidden));
  moe.validate(layers);
}

}  // namespace pipegrid::model
