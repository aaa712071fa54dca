#include "sim/model/presets.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedules/input_error.h"

namespace pipegrid::model {
namespace {

// Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"
// (SC 2021, arXiv 2104.04473), Table 1 (weak scaling): heads, hidden, layers and parameters (billions)
// of each row. The README of NVIDIA/Megatron-LM states that every one of these models uses vocabulary
// 51 200 and sequence 2048. The rows up to 310.1B are reproduced as Megatron arguments in
// aws-samples/awsome-distributed-training (3.test_cases/1.megatron-lm/README.md, "Table 1 (Page 8)").
constexpr std::string_view kTable1 = "Narayanan et al. SC 2021 (arXiv 2104.04473), Table 1";
// Brown et al., "Language Models are Few-Shot Learners" (2020), Table 2.1: GPT-3 175B has 96 layers,
// d_model 12288, 96 heads, context 2048. Megatron's vocabulary (51 200, GPT-2's BPE padded) as the
// Megatron paper uses when it compares with this model (its Table 2 counts it as 174.6B).
constexpr std::string_view kGpt3 = "Brown et al. 2020 (GPT-3), Table 2.1; Narayanan et al. SC 2021, Table 2";

TransformerPreset gpt(const char* name, int layers, int hidden, int heads, double billions,
                      std::string_view source) {
  Transformer model;
  model.name = name;
  model.layers = layers;
  model.hidden = hidden;
  model.heads = heads;
  model.seq = 2048;
  model.vocab = 51200;
  return {model, billions * 1e9, source};
}

}  // namespace

const std::vector<TransformerPreset>& transformer_presets() {
  static const std::vector<TransformerPreset> presets = {
      gpt("gpt-1.7b", 24, 2304, 24, 1.7, kTable1),
      gpt("gpt-3.6b", 30, 3072, 32, 3.6, kTable1),
      gpt("gpt-7.5b", 36, 4096, 32, 7.5, kTable1),
      gpt("gpt-18b", 40, 6144, 48, 18.4, kTable1),
      gpt("gpt-39b", 48, 8192, 64, 39.1, kTable1),
      gpt("gpt-76b", 60, 10240, 80, 76.1, kTable1),
      gpt("gpt-145b", 80, 12288, 96, 145.6, kTable1),
      gpt("gpt-175b", 96, 12288, 96, 174.6, kGpt3),
      gpt("gpt-310b", 96, 16384, 128, 310.1, kTable1),
      gpt("gpt-530b", 105, 20480, 128, 529.6, kTable1),
      gpt("gpt-1t", 128, 25600, 160, 1008.0, kTable1),  // the 3072-GPU run (REFERENCE.md)
  };
  return presets;
}

Transformer transformer_preset(std::string_view name) {
  const auto& presets = transformer_presets();
  const auto found = std::find_if(presets.begin(), presets.end(),
                                  [&](const TransformerPreset& p) { return p.model.name == name; });
  if (found != presets.end()) return found->model;
  std::vector<std::string> known;
  for (const auto& p : presets) known.push_back(p.model.name);
  throw InputError(fmt::format("--model {}: unknown model; known: {}", name, fmt::join(known, ", ")));
}

}  // namespace pipegrid::model
