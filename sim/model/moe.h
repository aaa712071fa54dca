// Mixture-of-experts layers as DeepSeek-V3 has them: routed experts that each token picks k of, shared
// experts every token goes through, spread over an expert-parallel group of GPUs.
#pragma once

#include <string>
#include <vector>

namespace pipegrid::model {

/// How tokens choose experts: all equally (`uniform`), by Zipf popularity (`zipf:S`: expert e gets
/// weight 1/(e + 1)^S, so expert 0 is the hot one), or by per-expert loads read from a file
/// (`file:PATH`: one non-negative number per expert, separated by spaces, commas or new lines).
struct Routing {
  enum class Kind { Uniform, Zipf, Loads };
  Kind kind = Kind::Uniform;
  double zipf_exponent = 0;
  std::vector<double> loads;  // Kind::Loads
  std::string text = "uniform";
};

/// Parses --routing; throws InputError (one line) for an unknown form, a negative or non-finite skew,
/// an unreadable file or a bad load.
Routing parse_routing(const std::string& text);

/// The MoE part of a model spec. Experts are SwiGLU MLPs (h → expert_hidden → h, three matmuls);
/// layers [0, first_dense_layers) keep the model's dense MLP, the others are MoE. Routed experts are
/// placed contiguously over the `ep` GPUs of an expert-parallel group, E / ep each. With
/// `max_nodes_per_token` M > 0, each token reaches experts on at most M nodes and crosses InfiniBand
/// once per node (DeepSeek-V3's node-limited routing with DeepEP's per-node dispatch).
struct MoeSpec {
  int experts = 0;  // routed experts E; 0: a dense model
  int top_k = 0;
  int shared_experts = 0;
  int expert_hidden = 0;
  int ep = 1;
  int etp = 1;  // expert tensor parallelism: each expert's GEMMs split over etp GPUs (Megatron-Core)
  int max_nodes_per_token = 0;
  int first_dense_layers = 0;
  int dispatch_bytes = 2;  // per element of a dispatched token (DeepSeek-V3: 1, FP8)
  int combine_bytes = 2;   // per element of a combined result (bf16)
  Routing routing;

  bool enabled() const { return experts > 0; }
  /// Throws InputError naming the flag: non-positive sizes, top-k above the experts, EP not dividing
  /// the experts, ETP not dividing the expert width, dense layers beyond the model's.
  void validate(int layers) const;
};

/// Each expert's share of all token-to-expert assignments (they sum to 1). A token picks k distinct
/// experts, so no expert can take more than 1/k of them: shares above that are capped and the
/// surplus spread over the others in proportion to their weights.
std::vector<double> expert_shares(const MoeSpec& moe);

/// Each EP member's share of the assignments: the sum of its experts' shares.
std::vector<double> member_shares(const MoeSpec& moe);

}  // namespace pipegrid::model
