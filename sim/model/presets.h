// Named model shapes from published runs, so `--model gpt-1t` means what the paper trained.
#pragma once

#include <string_view>
#include <vector>

#include "sim/model/transformer.h"

namespace pipegrid::model {

/// A published model shape with the parameter count its source prints, kept next to the shape so a
/// test can check the cost model's count against the paper's (the count is data, never used to cost).
struct TransformerPreset {
  Transformer model;
  double published_parameters = 0;  // as printed, e.g. 1008.0e9 for "1008.0 billion"
  std::string_view source;
};

/// Every preset, smallest first: the ten rows of Table 1 of Narayanan et al. (SC 2021) — GPT models of
/// 1.7B to 1T parameters, sequence 2048, vocabulary 51 200 — and GPT-3 175B.
const std::vector<TransformerPreset>& transformer_presets();

/// The preset called `name`, micro-batch size 1. Throws InputError
/// `--model NAME: unknown model; known: gpt-1.7b, …, gpt-1t` for any other name.
Transformer transformer_preset(std::string_view name);

}  // namespace pipegrid::model
