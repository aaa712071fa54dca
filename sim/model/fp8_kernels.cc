#include "sim/model/fp8_kernels.h"

namespace pipegrid::model::detail {
namespace {

bool runs_in_fp8(const Kernel& k) {
  if (k.gemm.batch <= 0) return false;
  if (k.kind == OpKind::Gemm) return true;
  // The router's logits stay in higher precision (Megatron-Core's TopKRouter is not a TE module).
  return k.kind == OpKind::Experts && !k.name.starts_with("router");
}

}  // namespace

void run_in_fp8(std::vector<Kernel>& kernels, Fp8Recipe recipe) {
  // Bytes per element of a cast-transpose: read bf16 (2), write the row-wise and column-wise FP8
  // copies (1 + 1), and with MXFP8 a 1-byte E8M0 scale per 32 elements of each.
  const double cast = recipe == Fp8Recipe::Mxfp8 ? 4 + 2.0 / 32 : 4;
  std::vector<Kernel> added;
  bool forward = false, backward = false;
  for (Kernel& k : kernels) {
    if (!runs_in_fp8(k)) continue;
    k.fp8 = true;
    // Its operands cross HBM as 1-byte FP8 (the output stays bf16): m·k + k·n + 2·m·n a GEMM.
    const GemmShape& g = k.gemm;
    k.bytes = g.batch * (g.m * g.k + g.k * g.n + 2 * g.m * g.n);
    // Forward GEMMs (also when recomputed in I) cast their input A = m×k; input-gradient GEMMs their
    // output gradient, A of the dgrad (`name.dgrad`); a weight-gradient GEMM reuses both.
    const bool is_forward = k.pass == Pass::F || k.recomputed;
    const bool is_dgrad = k.pass == Pass::I && !k.recomputed;
    if (!is_forward && !is_dgrad) continue;
    (k.pass == Pass::F ? forward : backward) = true;
    added.push_back({.name = is_forward ? "fp8_cast_input" : "fp8_cast_grad_output", .kind = OpKind::Fp8Cast,
                     .pass = k.pass, .part = k.part, .count = k.count, .gemm = {},
                     .bytes = cast * k.gemm.m * k.gemm.k * k.gemm.batch, .recomputed = k.recomputed});
    if (k.pass == Pass::F)  // the weight B = k×n, cast once a step
      added.push_back({.name = "fp8_cast_weight", .kind = OpKind::Fp8Cast, .pass = Pass::Step, .part = k.part,
                       .count = k.count, .gemm = {}, .bytes = cast * k.gemm.k * k.gemm.n * k.gemm.batch});
  }
  if (recipe == Fp8Recipe::Delayed) {
    if (forward) added.push_back({.name = "fp8_amax_update", .kind = OpKind::Fp8Cast, .pass = Pass::F, .gemm = {}});
    if (backward) added.push_back({.name = "fp8_amax_update", .kind = OpKind::Fp8Cast, .pass = Pass::I, .gemm = {}});
  }
  kernels.insert(kernels.end(), added.begin(), added.end());
}

}  // namespace pipegrid::model::detail
