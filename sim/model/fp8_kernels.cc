#include "sim/model/fp8_kernels.h"

#include <algorithm>
#include <array>

#include "sim/model/kernel_emitter.h"

namespace pipegrid::model::detail {
namespace {

bool runs_in_fp8(const Kernel& k) {
  if (k.gemm.batch <= 0) return false;
  if (k.kind == OpKind::Gemm) return true;
  // The router's logits stay in higher precision (Megatron-Core's TopKRouter is not a TE module).
  return k.kind == OpKind::Experts && !k.name.starts_with("router");
}

// The GEMMs whose input a norm writes: Megatron-Core's TE layer spec builds linear_qkv and linear_fc1
// as TELayerNormColumnParallelLinear, whose norm writes the FP8 copy itself (TE's LayerNormLinear).
bool input_from_fused_norm(const Kernel& k) {
  constexpr std::array<std::string_view, 3> kNames{"qkv", "mlp_up", "mlp_gate_up"};
  return k.kind == OpKind::Gemm && std::ranges::find(kNames, k.name) != kNames.end();
}

// The row-parallel GEMMs' input gradients, whose output gradient sequence parallelism gathers first.
bool gathers_grad_output(const Kernel& k) { return k.name == "projection.dgrad" || k.name == "mlp_down.dgrad"; }

// Megatron-Core's TEGroupedMLP pads each local expert's tokens to the FP8 GEMMs' 16-row alignment
// before the first grouped GEMM and strips the padding after the second (TE's Fp8Padding and
// Fp8Unpadding, which copy whether or not a row is added): a bf16 copy of the routed tokens, read 2
// and write 2 bytes an element, each way, forward and again backward.
template <typename Add>
void pad(const Kernel& k, Add& add) {
  const GemmShape& g = k.gemm;
  const bool first = k.name == "expert_gate_up";
  if (!first && k.name != "expert_down") return;
  const double rows = g.m * g.batch * (first ? g.k : g.n);  // the tokens × h going in, or coming out
  const std::string_view name = first ? "fp8_padding" : "fp8_unpadding";
  add(name, k, k.pass, 2 * kHalf * rows, OpKind::Permute);
  if (k.pass == Pass::F) add(first ? "fp8_padding.bwd" : "fp8_unpadding.bwd", k, Pass::I, 2 * kHalf * rows, OpKind::Permute);
}

}  // namespace

void run_in_fp8(std::vector<Kernel>& kernels, Fp8Recipe recipe, int sequence_shards, bool pad_routed_tokens) {
  const bool mx = recipe == Fp8Recipe::Mxfp8;
  // Bytes per element of a cast-transpose: read bf16 (2), write the row-wise and column-wise FP8
  // copies (1 + 1), and with MXFP8 a 1-byte E8M0 scale per 32 elements of each.
  const double scales = mx ? 2.0 / 32 : 0, cast = 4 + scales;
  const double shards = std::max(1, sequence_shards);
  std::vector<Kernel> added;
  const auto add = [&](std::string_view name, const Kernel& k, Pass pass, double bytes, OpKind kind = OpKind::Fp8Cast) {
    added.push_back({.name = name, .kind = kind, .pass = pass, .part = k.part, .count = k.count,
                     .gemm = {}, .bytes = bytes, .recomputed = pass != Pass::Step && k.recomputed});
  };
  bool forward = false, backward = false;
  Kernel* norm = nullptr;  // the forward norm last run, whose output feeds a fused-norm GEMM
  for (Kernel& k : kernels) {
    const bool is_forward = k.pass == Pass::F || k.recomputed;
    if (k.kind == OpKind::LayerNorm && is_forward) norm = &k;
    if (!runs_in_fp8(k)) continue;
    k.fp8 = true;
    // Its operands cross HBM as 1-byte FP8 (the output stays bf16): m·k + k·n + 2·m·n a GEMM.
    const GemmShape& g = k.gemm;
    k.bytes = g.batch * (g.m * g.k + g.k * g.n + 2 * g.m * g.n);
    const double a = g.m * g.k * g.batch;  // the input A, T×k, whole (gathered) tokens
    const bool is_dgrad = k.pass == Pass::I && !k.recomputed;
    if (is_forward) {
      forward |= k.pass == Pass::F;
      backward |= k.pass == Pass::I;
      if (input_from_fused_norm(k) && norm != nullptr) {
        // The norm writes the FP8 copy (1 byte, not 2) of its s/t tokens, which sequence parallelism
        // gathers in FP8; the weight gradient's transposed copy is one FP8 transpose (read 1, write 1;
        // with MXFP8 the norm writes both copies and their scales instead).
        norm->bytes += (mx ? scales : -1.0) * a / shards;
        if (!mx) add("fp8_transpose_input", k, k.pass, 2 * a);
      } else {
        add("fp8_cast_input", k, k.pass, cast * a);
      }
      if (k.pass == Pass::F) add("fp8_cast_weight", k, Pass::Step, cast * g.k * g.n * g.batch);  // once a step
      if (k.part == Part::Routed && pad_routed_tokens) pad(k, add);
    } else if (is_dgrad) {
      backward = true;
      // Its output gradient, which wgrad reuses. Under sequence parallelism a row-parallel GEMM's is
      // cast on the GPU's s/t tokens (read 2, write 1) before it is gathered in FP8, then transposed
      // whole (TE's grad_output_preprocess: "cast, transpose for efficient gather").
      const bool gathered = shards > 1 && gathers_grad_output(k) && !mx;
      add("fp8_cast_grad_output", k, Pass::I, gathered ? 3 * a / shards + 2 * a : cast * a);
    }
  }
  if (recipe == Fp8Recipe::Delayed) {
    if (forward) added.push_back({.name = "fp8_amax_update", .kind = OpKind::Fp8Cast, .pass = Pass::F, .gemm = {}});
    if (backward) added.push_back({.name = "fp8_amax_update", .kind = OpKind::Fp8Cast, .pass = Pass::I, .gemm = {}});
  }
  kernels.insert(kernels.end(), added.begin(), added.end());
}

}  // namespace pipegrid::model::detail
