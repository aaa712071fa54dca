// A model read from a Hugging Face config.json, by the field names the transformers library's
// configuration classes use, so that a user holding a checkpoint's config need not translate it into
// flags by hand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/model/transformer.h"

namespace pipegrid::model {

/// The `architectures[0]` values the reader knows: LlamaForCausalLM, MistralForCausalLM, …
std::vector<std::string_view> hf_architectures();

/// The model `text` describes, named `name`. Its sequence length is 0 — a config gives the longest
/// context (max_position_embeddings), not the sequence a run trains with — except GPT-2's, whose
/// learned position table is n_positions long. Throws InputError `WHERE: FIELD: RULE` (one line) for
/// malformed JSON, an unknown architecture, a missing size, a field of the wrong type or out of
/// range, and a shape the model description cannot express (a Qwen MoE layer pattern other than
/// "the first k dense", a gated MLP other than SwiGLU, sliding-window attention, …).
Transformer parse_hf_config(std::string_view text, std::string_view where, std::string name);

/// The config.json at `path`: a regular file of at most 1 MiB, parsed as above with WHERE
/// `--hf-config PATH`, named after its folder (`llama3.1-70b` for llama3.1-70b/config.json) or, for a
/// file of another name, after its stem.
Transformer read_hf_config(const std::string& path);

}  // namespace pipegrid::model
