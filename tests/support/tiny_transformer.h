// A GPT small enough to count by hand (s = 4, b = 2, h = 8, a = 2, V = 16, 4 layers): Korthikanti's
// activation terms and a layer's parameters come out in a few hundred bytes.
#pragma once

#include "sim/model/transformer.h"

namespace pipegrid::test_support {

inline model::Transformer tiny_transformer() {
  model::Transformer m;
  m.name = "tiny";
  m.layers = 4;
  m.hidden = 8;
  m.heads = 2;
  m.seq = 4;
  m.vocab = 16;
  m.micro_batch = 2;
  return m;
}

}  // namespace pipegrid::test_support
