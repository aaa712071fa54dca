#include "sim/model/presets.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/input_error.h"

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

// DeepSeek-V3 (technical report, arXiv 2412.19437, §4.2 and docs/reference.md): 61 layers, hidden 7168, 128
// heads, sequence 4096, vocabulary 129280 (the released config), untied embeddings; the first 3 layers
// dense with a SwiGLU MLP of 18432 (as FLOPs and parameters, a two-matmul MLP of 1.5 × 18432 = 27648),
// the others MoE: 1 shared + 256 routed SwiGLU experts of 2048, 8 routed per token, at most 4 nodes
// per token, dispatch in FP8 (1 byte), combine in bf16. Attention is counted as multi-head (4h²
// parameters a layer) where the model has multi-head latent attention (~187 M a layer): the 671 B it
// publishes, counted ours, comes out within 3 %.
TransformerPreset deepseek_v3() {
  Transformer m;
  m.name = "deepseek-v3";
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.seq = 4096;
  m.vocab = 129280;
  m.ffn_hidden = 27648;
  m.tied_embeddings = false;
  m.moe.experts = 256;
  m.moe.top_k = 8;
  m.moe.shared_experts = 1;
  m.moe.expert_hidden = 2048;
  m.moe.first_dense_layers = 3;
  m.moe.max_nodes_per_token = 4;
  m.moe.dispatch_bytes = 1;
  m.moe.combine_bytes = 2;
  return {m, 671e9, "DeepSeek-V3 technical report (arXiv 2412.19437), §4.2"};
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
      gpt("gpt-1t", 128, 25600, 160, 1008.0, kTable1),  // the 3072-GPU run (docs/reference.md)
      deepseek_v3(),
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
