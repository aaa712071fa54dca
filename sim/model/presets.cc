#include "sim/model/presets.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "common/input_error.h"
#include "sim/model/hf_config.h"
#include "sim/model/model_config_files.h"

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

// The presets read from the Hugging Face configs shipped in experiments/models/NAME/config.json
// (README.md there names each file's source and licence), compiled in: the config gives the shape, the
// row what the config cannot — the sequence the model was pre-trained with, the counts its makers
// publish — and, for DeepSeek-V3, the report's FP8 dispatch.
struct ConfigRow {
  const char* name;
  int seq;
  double billions;         // total parameters as published
  double active_billions;  // MoE: activated per token; 0 for a dense model
  std::string_view source;
};

constexpr ConfigRow kConfigRows[] = {
    // Dubey et al., "The Llama 3 Herd of Models" (arXiv 2407.21783), §3.4.1: pre-trained at 8K tokens;
    // the parameter counts are the model cards' (meta-llama/Llama-3.1-8B, -70B, -405B).
    {"llama3.1-8b", 8192, 8.03, 0, "Llama 3.1 model card; Dubey et al. 2024 (arXiv 2407.21783), §3.4.1"},
    {"llama3.1-70b", 8192, 70.6, 0, "Llama 3.1 model card; Dubey et al. 2024 (arXiv 2407.21783), §3.4.1"},
    {"llama3.1-405b", 8192, 405.9, 0, "Llama 3.1 model card; Dubey et al. 2024 (arXiv 2407.21783), §3.4.1"},
    // Parmar et al., "Nemotron-4 15B Technical Report" (arXiv 2402.16819), §2: 3.2B embedding and 12.5B
    // non-embedding parameters, sequence 4096; NVIDIA, "Nemotron-4 340B Technical Report" (arXiv
    // 2406.11704), §2.1: 9.4B embedding and 331.6B non-embedding parameters, sequence 4096.
    {"nemotron4-15b", 4096, 3.2 + 12.5, 0, "Parmar et al. 2024 (arXiv 2402.16819), §2, Table 1"},
    {"nemotron4-340b", 4096, 9.4 + 331.6, 0, "NVIDIA 2024 (arXiv 2406.11704), §2.1, Table 1"},
    // Mistral AI, "Mixtral of experts" (2023-12-11): 46.7B total, 12.9B per token; Jiang et al. (arXiv
    // 2401.04088), §2: trained with a context of 32K tokens. "Cheaper, Better, Faster, Stronger"
    // (2024-04-17): Mixtral 8x22B, 39B active of 141B, a 64K-token context window.
    {"mixtral-8x7b", 32768, 46.7, 12.9, "Mistral AI 2023, Mixtral of experts; Jiang et al. 2024 (arXiv 2401.04088)"},
    {"mixtral-8x22b", 65536, 141, 39, "Mistral AI 2024, Cheaper, Better, Faster, Stronger"},
    // Qwen Team, "Qwen3 Technical Report" (arXiv 2505.09388), Table 2 (235B total, 22B activated) and
    // §3.2: pre-training stages 1 and 2 at sequence 4096.
    {"qwen3-235b-a22b", 4096, 235, 22, "Qwen3 technical report (arXiv 2505.09388), Table 2, §3.2"},
    // DeepSeek-AI, "DeepSeek-V3 Technical Report" (arXiv 2412.19437), §4.2: 671B total, 37B activated,
    // sequence 4096 (the multi-token-prediction module's 14B are not in the 671B, nor here).
    {"deepseek-v3", 4096, 671, 37, "DeepSeek-V3 technical report (arXiv 2412.19437), §4.2"},
};

TransformerPreset from_config(const ConfigRow& row) {
  const auto& files = model_config_files();
  const auto file = std::find_if(files.begin(), files.end(), [&](const DataFile& f) { return f.name == row.name; });
  if (file == files.end())
    throw std::logic_error(fmt::format("model preset {}: experiments/models/{}/config.json was not compiled in",
                                       row.name, row.name));
  Transformer m = parse_hf_config(file->text, fmt::format("experiments/models/{}/config.json", row.name), row.name);
  m.seq = row.seq;
  if (m.name == "deepseek-v3") {
    // §3.3.2: tokens are dispatched in FP8 and combined in BF16.
    m.moe.dispatch_bytes = 1;
    m.moe.combine_bytes = 2;
  }
  return {m, row.billions * 1e9, row.source, row.active_billions * 1e9};
}

std::vector<TransformerPreset> all_presets() {
  std::vector<TransformerPreset> presets = {
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
  };
  for (const ConfigRow& row : kConfigRows) presets.push_back(from_config(row));
  return presets;
}

}  // namespace

const std::vector<TransformerPreset>& transformer_presets() {
  static const std::vector<TransformerPreset> presets = all_presets();
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
