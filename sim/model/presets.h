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
  double published_active_parameters = 0;  // MoE: activated per token, as printed; 0 for a dense model
};

/// Every preset: the ten rows of Table 1 of Narayanan et al. (SC 2021) — GPT models of 1.7B to 1T
/// parameters, sequence 2048, vocabulary 51 200 — and GPT-3 175B, smallest first; then today's models
/// read from the Hugging Face configs of experiments/models/ (Llama 3.1 8B, 70B, 405B, Nemotron-4 15B
/// and 340B, Mixtral 8x7B and 8x22B, Qwen3-235B-A22B, DeepSeek-V3).
const std::vector<TransformerPreset>& transformer_presets();

/// The preset called `name`, micro-batch size 1. Throws InputError
/// `--model NAME: unknown model; known: gpt-1.7b, …, gpt-1t` for any other name.
Transformer transformer_preset(std::string_view name);

}  // namespace pipegrid::model
