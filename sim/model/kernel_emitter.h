// The kernel list's builder, shared by the files that emit a layer's kernels (kernels.cc: the MLP,
// experts, embedding, LM head and the stage; attention_kernels.cc: the attention block).
#pragma once

#include <string_view>
#include <vector>

#include "sim/model/kernels.h"
#include "sim/model/layer_costs.h"

namespace pipegrid::model::detail {

constexpr double kHalf = 2;  // bytes of a bf16/fp16 element

// Appends kernels of one pass and part, `count` launches each.
struct Emitter {
  std::vector<Kernel>& out;
  Pass pass = Pass::F;
  Part part = Part::Dense;
  double count = 1;

  void gemm(std::string_view name, OpKind kind, double m, double n, double k, double batch = 1) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count,
                   .gemm = {m, n, k, batch}, .flops = 2 * m * n * k * batch,
                   .bytes = kHalf * batch * (m * k + k * n + m * n)});
  }
  void memory(std::string_view name, OpKind kind, double bytes) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count, .gemm = {}, .bytes = bytes});
  }
  void fused(std::string_view name, OpKind kind, double flops, double bytes) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count, .gemm = {}, .flops = flops,
                   .bytes = bytes});
  }
  Emitter at(Pass p) const { return {out, p, part, count}; }
};

/// The name of the model's norm before the attention (0), before the MLP (1) or at the end (2), and
/// the name of a norm's backward.
std::string_view norm_name(const Transformer& m, int which);
std::string_view backward_name(std::string_view forward);
/// A norm over `width` elements per token: F and its backward in I.
void norm(std::string_view name, double width, double T, Emitter e);
/// How context parallelism shapes the attention core of a model whose `seq` is already the GPU's s/cp
/// tokens: the ring attends its s/cp queries to all s keys over the cp steps (1/cp of the causal
/// square with the load-balanced split), all-to-all (Ulysses) the whole s on a/(t·cp) heads.
struct ContextSplit {
  int cp = 1;
  bool all_to_all = false;
};
/// The attention core's forward kernels into `f` (also what selective recomputation runs again).
void attention_core_forward(const Transformer& m, int t, bool flash, Emitter f, ContextSplit cp = {});
/// Self-attention with its norm and residual: F, I and W.
void attention_block(const Transformer& m, int t, bool flash, Emitter e, ContextSplit cp = {});

}  // namespace pipegrid::model::detail
