// The model's options: the transformer (a preset, a Hugging Face config or its fields), how it is cut
// and recomputed, and its mixture-of-experts layers (docs/models.md). Part of the one table of
// options (option_schema.cc), kept in a file of its own for its length.
#include <string>
#include <vector>

#include "sim/input/schema_parts.h"
#include "sim/input/text_values.h"
#include "sim/model/kernels.h"
#include "sim/model/parallelism.h"
#include "sim/model/presets.h"
#include "sim/model/transformer.h"

namespace pipegrid::input::schema {

namespace {

using enum ValueType;

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& preset : model::transformer_presets()) names.push_back(preset.model.name);
  return names;
}

}  // namespace

std::vector<OptionSpec> model_options() {
  // clang-format off
  return {
      // --- a model ----------------------------------------------------------------------------------
      {.flag = "model", .section = "model", .key = "name", .commands = kSim, .type = Choice, .choices = model_names(),
       .help = "a transformer preset: the Megatron-LM paper's GPT table, GPT-3, or a shipped config.json "
               "(experiments/models/: Llama 3.1, Nemotron-4, Mixtral, Qwen3, DeepSeek-V3)"},
      {.flag = "hf-config", .section = "model", .commands = kSim, .type = Path,
       .help = "a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2/3 and their MoE, DeepSeek-V3, Nemotron, "
               "GPT-2) instead of --model; the sequence is --seq's (GPT-2's: n_positions)"},
      {.flag = "layers", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 100'000),
       .help = "transformer layers (overrides the preset's)"},
      {.flag = "hidden", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 20),
       .help = "hidden size h"},
      {.flag = "heads", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 16),
       .help = "attention heads a"},
      {.flag = "seq", .section = "model", .commands = kSim, .type = Integer, .unit = "tokens",
       .bounds = at_least(1, 1 << 24), .help = "sequence length s"},
      {.flag = "vocab", .section = "model", .commands = kSim, .type = Integer, .unit = "tokens",
       .bounds = at_least(1, 1 << 24), .help = "vocabulary size V"},
      {.flag = "ffn-hidden", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 24),
       .help = "MLP inner size (default 4 x hidden)"},
      {.flag = "kv-heads", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 16),
       .help = "key-value heads g (grouped-query attention; 1: multi-query; default: the query heads)"},
      {.flag = "head-dim", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 16),
       .help = "width of a head d (default hidden / heads)"},
      {.flag = "mlp", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<model::Mlp>(model::kMlps),
       .help = "the MLP: gelu (GPT), swiglu (gated: Llama, Mixtral, Qwen, DeepSeek) or squared-relu (Nemotron-4); "
               "default gelu"},
      {.flag = "norm", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<model::Norm>(model::kNorms),
       .help = "layernorm (scale and shift) or rmsnorm (scale); default layernorm"},
      {.flag = "positions", .section = "model", .commands = kSim, .type = Choice,
       .choices = names_of<model::Positions>(model::kPositions),
       .help = "learned position embeddings (an s x h table) or rope (rotary, no parameters); default learned"},
      {.flag = "linear-bias", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<bool>(model::kSwitches),
       .help = "every linear layer has a bias (GPT); default on"},
      {.flag = "qkv-bias", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<bool>(model::kSwitches),
       .help = "the QKV projection has a bias (Qwen2 keeps it without the others'); default on"},
      {.flag = "dropout", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<bool>(model::kSwitches),
       .help = "attention and hidden dropout (GPT's 0.1; memory for its masks); default on"},
      {.flag = "tied-embeddings", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<bool>(model::kSwitches),
       .help = "the output layer reuses the word embeddings (off: a V x h matrix of its own); default on"},
      {.flag = "q-lora-rank", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 20),
       .help = "MLA: the queries' latent width (0: queries not compressed)"},
      {.flag = "kv-lora-rank", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 20),
       .help = "MLA: the keys' and values' shared latent width (> 0: multi-head latent attention)"},
      {.flag = "qk-rope-head-dim", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 20),
       .help = "MLA: a head's rotary query and key width (the key's shared by all heads)"},
      {.flag = "qk-nope-head-dim", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 20),
       .help = "MLA: a head's query and key width without positions"},
      {.flag = "v-head-dim", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 20),
       .help = "MLA: a head's value width"},
      {.flag = "micro-batch", .section = "model", .commands = kSim, .type = Integer, .unit = "sequences",
       .bounds = at_least(1, 1 << 16), .default_text = "1", .help = "sequences per micro-batch b"},
      {.flag = "compute-efficiency", .section = "model", .commands = kSim, .type = Number,
       .bounds = interval(0, true, 1, false),
       .help = "override: every FLOP of the model at this fraction of the GPU's peak (default: the calibrated "
               "kernel model of the platform's gpu_model)"},
      {.flag = "precision", .section = "model", .commands = kSim, .type = Choice,
       .choices = names_of<model::ComputePrecision>(model::kComputePrecisions), .default_text = "bf16",
       .help = "what the linear layers' GEMMs run in: bf16, or fp8 as Transformer Engine runs it (delayed scaling "
               "on Hopper, MXFP8 on Blackwell; attention, LM head and gradients stay bf16); MFU is then against the "
               "FP8 peak",
       .identity_when_given = kSim},
      {.flag = "fp8-moe-padding", .section = "model", .commands = kSim, .type = Choice,
       .choices = names_of<bool>(model::kSwitches), .default_text = "on",
       .help = "with --precision fp8: copy the routed experts' tokens to FP8's row alignment and back, as "
               "Megatron-Core's TEGroupedMLP does (off: a dispatch that writes them aligned, as DeepEP can)",
       .identity_when_given = kSim},
      {.flag = "recompute", .section = "model", .commands = kSim, .type = Choice, .choices = names_of<model::Recompute>(model::kRecomputes),
       .default_text = "none", .help = "activation recomputation"},
      {.flag = "scatter-gather", .section = "model", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "each TP rank sends 1/t of a stage boundary's activations"},
      {.flag = "sequence-parallel", .section = "model", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "Megatron-Core's sequence parallelism (TP > 1): reduce-scatters and all-gathers instead of the TP "
               "all-reduces, norms, dropout and residuals on s/t tokens, their activations ÷ t",
       .identity_when_given = kSim},
      {.flag = "gradient-bytes", .section = "model", .commands = kSim, .type = Integer, .unit = "bytes",
       .bounds = at_least(1, 16), .default_text = "4", .help = "bytes per gradient element all-reduced"},
      {.flag = "distributed-optimizer", .section = "model", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "shard the optimizer state over the data-parallel replicas (ZeRO-1): gradients reduce-scattered, "
               "parameters all-gathered; the same as --zero 1"},
      {.flag = "zero", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(3),
       .default_text = "0",
       .help = "ZeRO stage, sharding over the gradient group (dp x cp GPUs): 0 none, 1 the optimizer state "
               "sharded (--distributed-optimizer), 2 the gradients too (DeepSpeed), 3 the parameters too, as "
               "PyTorch FSDP2 under torchtitan: each layer all-gathered before its forward and backward, its "
               "gradients reduce-scattered",
       .identity_when_given = kSim},  // a sweep configuration that does not give it keeps its id
      {.flag = "fsdp-reshard-after-forward", .section = "model", .commands = kSim, .type = Flag,
       .default_text = "false",
       .help = "with --zero 3: gather every unit before every micro-batch's forward and backward and free it after "
               "(torchtitan's reshard_after_forward \"always\"), not once per stage and step with a pipeline, nor "
               "keeping the last block for its backward without one",
       .identity_when_given = kSim},
      {.flag = "uneven-layers", .section = "model", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "let the layers split unevenly over the stages"},
      {.flag = "layer-split", .section = "model", .commands = kSim, .type = Text, .default_text = "even",
       .help = "layers per model stage: even (as many each; --uneven-layers spreads a remainder), balanced (the "
               "counts that even out the stages' compute times, embedding and LM head included) or N1,N2,…",
       .syntax = layer_split_syntax, .identity_when_given = kSim},
      {.flag = "flash-attention", .section = "model", .commands = kSim, .type = Flag, .default_text = "false",
       .help = "memory: attention scores are not stored (FlashAttention), dropping Korthikanti's 5as^2 term"},
      {.flag = "stage-cost-scale", .section = "model", .commands = kSim, .type = Text,
       .help = "heavier or lighter stages: STAGE=FACTOR[,…], e.g. 0=1.3,63=1.5", .syntax = stage_scale_syntax},

      // --- mixture of experts -----------------------------------------------------------------------
      {.flag = "experts", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 16),
       .help = "MoE: routed experts per layer (0: dense)"},
      {.flag = "top-k", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 16),
       .help = "MoE: routed experts per token"},
      {.flag = "shared-experts", .section = "model", .commands = kSim, .type = Integer, .bounds = not_negative(1 << 16),
       .help = "MoE: experts every token goes through"},
      {.flag = "expert-hidden", .section = "model", .commands = kSim, .type = Integer, .bounds = at_least(1, 1 << 24),
       .help = "MoE: an expert's inner width (SwiGLU)"},
      {.flag = "first-dense-layers", .section = "model", .commands = kSim, .type = Integer,
       .bounds = not_negative(100'000), .help = "MoE: leading layers with a dense MLP"},
      {.flag = "max-nodes-per-token", .section = "model", .commands = kSim, .type = Integer,
       .bounds = not_negative(1 << 20), .help = "MoE: node-limited routing (0: no limit)"},
      {.flag = "dispatch-bytes", .section = "model", .commands = kSim, .type = Integer, .unit = "bytes",
       .bounds = at_least(1, 16), .help = "MoE: bytes per dispatched element (FP8: 1)"},
      {.flag = "combine-bytes", .section = "model", .commands = kSim, .type = Integer, .unit = "bytes",
       .bounds = at_least(1, 16), .help = "MoE: bytes per combined element"},
      {.flag = "routing", .section = "model", .commands = kSim, .type = Text, .default_text = "uniform",
       .help = "MoE: uniform, zipf:S (skewed popularity) or file:PATH (per-expert loads)", .syntax = routing_syntax,
       .path_prefix = "file:"},
  };
  // clang-format on
}

}  // namespace pipegrid::input::schema
