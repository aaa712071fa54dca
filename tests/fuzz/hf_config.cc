// Fuzzes the Hugging Face config reader (sim/model/hf_config.h): parse_hf_config on any text. A refusal
// is an InputError of one line naming the config; what it accepts is a model the description holds —
// every size positive, validate() passing once a sequence is given — and the same text reads as the
// same model again.
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "fuzz_support.h"
#include "sim/model/hf_config.h"
#include "sim/model/layer_costs.h"

using namespace pipegrid;

namespace {

bool same(const model::Transformer& a, const model::Transformer& b) {
  return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads && a.vocab == b.vocab && a.seq == b.seq &&
         a.kv_heads == b.kv_heads && a.head_dim == b.head_dim && a.ffn_hidden == b.ffn_hidden && a.mlp == b.mlp &&
         a.norm == b.norm && a.positions == b.positions && a.linear_bias == b.linear_bias && a.qkv_bias == b.qkv_bias &&
         a.dropout == b.dropout && a.tied_embeddings == b.tied_embeddings && a.mla.kv_lora_rank == b.mla.kv_lora_rank &&
         a.mla.q_lora_rank == b.mla.q_lora_rank && a.moe.experts == b.moe.experts && a.moe.top_k == b.moe.top_k &&
         a.moe.expert_hidden == b.moe.expert_hidden && a.moe.shared_experts == b.moe.shared_experts &&
         a.moe.first_dense_layers == b.moe.first_dense_layers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  model::Transformer m;
  try {
    m = model::parse_hf_config(text, "config.json", "fuzzed");
  } catch (const InputError& e) {
    const std::string line = e.what();
    fuzz::check(line.starts_with("config.json: "), "a refusal that does not name the config: " + line);
    fuzz::check(line.find('\n') == std::string::npos, "a refusal of more than one line: " + line);
    fuzz::rejected(line);
    return 0;
  }
  fuzz::accepted(m.name);
  fuzz::check(m.layers > 0 && m.hidden > 0 && m.heads > 0 && m.vocab > 0, "a model with a size that is not positive");
  fuzz::check(m.heads % m.query_groups() == 0, "query heads not a multiple of the key-value heads");
  if (m.seq == 0) m.seq = 4096;
  try {
    m.validate();
  } catch (const InputError& e) {
    fuzz::fail(std::string("accepted, but the model does not validate: ") + e.what());
  }
  // Counting must not overflow for any accepted shape the bounds allow (UBSan watches the integers).
  (void)model::parameter_count(m);
  (void)model::active_parameter_count(m);
  model::Transformer again = model::parse_hf_config(text, "config.json", "fuzzed");
  if (again.seq == 0) again.seq = 4096;
  fuzz::check(same(m, again), "the same config read twice gives two models");
  return 0;
}
