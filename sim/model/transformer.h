// A decoder-only transformer (GPT) as Megatron-LM builds it: the shape the cost model charges for.
#pragma once

#include <optional>
#include <string>

#include "sim/model/moe.h"

namespace pipegrid::model {

/// A GPT-style decoder: learned word and position embeddings, `layers` identical transformer layers
/// (LayerNorm, self-attention, LayerNorm, a two-matmul MLP, each matmul with a bias) and a language-model
/// head whose weights are the word embeddings unless `tied_embeddings` is false. Letters as in Narayanan
/// et al. (SC 2021): l layers, h hidden, a heads, s sequence, V vocabulary, b micro-batch size.
/// Multi-head attention only (no grouped-query attention); a dense MLP, or mixture-of-experts layers
/// as `moe` describes them.
struct Transformer {
  std::string name;
  int layers = 0;                 // l
  int hidden = 0;                 // h
  int heads = 0;                  // a
  int seq = 0;                    // s, tokens per sequence
  int vocab = 0;                  // V
  int micro_batch = 1;            // b, sequences per micro-batch
  std::optional<int> ffn_hidden;  // the MLP's inner width; 4h, as in GPT and Megatron, unless set
  bool tied_embeddings = true;    // the LM head reuses the word embeddings (Megatron's default)
  MoeSpec moe;                    // experts == 0: every layer dense

  int ffn() const { return ffn_hidden.value_or(4 * hidden); }

  /// Throws InputError, one line naming the flag (`--layers`, `--hidden`, `--heads`, `--seq`, `--vocab`,
  /// `--micro-batch`, `--ffn-hidden`), for a field that is not positive or heads that do not divide
  /// the hidden size (every head must have the same width h / a).
  void validate() const;
};

}  // namespace pipegrid::model
