// What an op's tensor-parallel collectives add to its compute at their α-β times, shared by the
// executor (sim/exec/gpu_compute.cc) and the contention-free engine (op_times.h) so the two agree
// to the bit.
#pragma once

#include <algorithm>

namespace pipegrid {

/// An op's tensor-parallel collectives: whole all-reduces, and sequence parallelism's halves (a
/// reduce-scatter after a row-parallel GEMM, an all-gather before a column-parallel one).
struct TpCollectives {
  int allreduces = 0;
  int reduce_scatters = 0;
  int all_gathers = 0;
  /// Of those, the backward's "native pairs" of sequence parallelism: each column-parallel GEMM's
  /// input gathered again for its weight gradient, issued async under its input-gradient (dgrad)
  /// GEMM, and its input gradient's reduce-scatter, async under its weight-gradient (wgrad) GEMM
  /// (Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication.backward; Transformer Engine's
  /// Linear does the same). A split backward's I has the gathers' pairs only: its wgrad is W's.
  int native_gathers = 0;
  int native_scatters = 0;
  /// Ring halves: an all-reduce is two, a reduce-scatter or an all-gather one.
  int halves() const { return 2 * allreduces + reduce_scatters + all_gathers; }
  bool any() const { return halves() > 0; }
};

/// `allreduce_seconds`: one all-reduce of the op's size over its TP ring; a half takes half of it
/// (collectives.h: (n − 1)/n · S / bw + (n − 1) · latency). `gemm_seconds`: the op's GEMMs;
/// `dgrad_seconds` and `wgrad_seconds` those of its backward's input and weight gradients.
struct TpOpCost {
  TpCollectives calls;
  double allreduce_seconds = 0;
  double gemm_seconds = 0;
  double dgrad_seconds = 0;
  double wgrad_seconds = 0;

  /// Without --tp-comm-overlap: back to back after the compute, but for the native pairs, each of
  /// which runs under its GEMM — a column GEMM's dgrad or wgrad, taken as an equal share of the op's
  /// (a layer's weight GEMMs are half column-, half row-parallel: dgrad / (2 · native_gathers)) —
  /// and costs only what it outlasts it by.
  double serial() const {
    if (calls.reduce_scatters + calls.all_gathers == 0) return calls.allreduces * allreduce_seconds;
    const double half = allreduce_seconds / 2;
    const int natives = calls.native_gathers + calls.native_scatters;
    double extra = (calls.halves() - natives) * half;
    extra += calls.native_gathers * std::max(0.0, half - native_share(dgrad_seconds, calls.native_gathers));
    extra += calls.native_scatters * std::max(0.0, half - native_share(wgrad_seconds, calls.native_scatters));
    return extra;
  }
  /// One native pair's GEMM: an equal share of the op's dgrad or wgrad GEMMs, of which the column
  /// GEMMs are half.
  static double native_share(double gemm_seconds, int natives) { return natives > 0 ? gemm_seconds / (2 * natives) : 0; }

  /// --tp-comm-overlap (Transformer Engine's userbuffers): each reduce-scatter or all-gather runs
  /// under its GEMM — modelled as an equal share of the op's GEMM time — so a pair costs the longer
  /// of the two. A GEMM paired with a reduce-scatter runs `rs_gemm_slowdown` slower (TE's pipelined
  /// reduce-scatter takes SMs from it; the ring-exchange all-gather copies with the copy engines).
  /// Returns what the op takes beyond its compute; whole all-reduces stay serial.
  double overlapped_extra(double rs_gemm_slowdown) const {
    const int pairs = calls.reduce_scatters + calls.all_gathers;
    if (pairs == 0) return serial();
    const double half = allreduce_seconds / 2, gemm = gemm_seconds / pairs;
    const double paired = calls.reduce_scatters * std::max(gemm * rs_gemm_slowdown, half) +
                          calls.all_gathers * std::max(gemm, half);
    return calls.allreduces * allreduce_seconds + std::max(0.0, paired - gemm_seconds);
  }
};

}  // namespace pipegrid
