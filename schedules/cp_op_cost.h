// What an op's context-parallel communication adds to its compute at α-β times, shared by the
// executor (sim/exec/gpu_compute.cc) and the contention-free engine (op_times.h) so the two agree.
#pragma once

#include <algorithm>

namespace pipegrid {

/// One virtual stage's context parallelism on one GPU, per micro-batch: the layers whose attention
/// runs with it, and the α-β seconds of its messages and of the attention they overlap with.
///
/// Ring (Megatron-Core cp_comm_type "p2p", Transformer Engine's AttnFuncWithCPAndKVP2P): a layer's
/// forward runs cp steps, step 0 on the local KV block, step k on the block received from the
/// previous CP rank; the send of the next block runs under the current step's attention, so the
/// forward costs Σ max(step, send) over the cp − 1 sends, plus the last step. The backward
/// (TE's backward loop) runs cp steps too, each under one send: K and V first, then K, V and the dK,
/// dV accumulated so far together (cp − 2 of them), then dK, dV alone back to their owner — cp − 1
/// KV's and cp − 1 dKV's worth.
///
/// All-to-all (DeepSpeed-Ulysses, TE's "a2a"): Q, K and V each turned from sequence- to
/// head-sharded before the attention and the output back after it, on the critical path: 4 per layer
/// forward, and their mirror in the backward (dO in, dQ, dK, dV out).
struct CpStageComm {
  int cp = 1;
  bool all_to_all = false;
  int forward_layers = 0;     // attention forwards in an F
  int backward_layers = 0;    // attention backwards in a B or I
  int recomputed_layers = 0;  // attention forwards run again in a B or I (selective or full recomputation)
  double kv_send = 0;         // ring: one send of K and V (or of dK and dV), seconds
  double kv_dkv_send = 0;     // ring: one send of K, V, dK and dV together
  double forward_step = 0;    // ring: one step's attention forward (the layer's ÷ cp), seconds
  double backward_step = 0;   // ring: one step's attention backward
  double q_alltoall = 0;      // all-to-all of Q (O, dQ, dO)
  double kv_alltoall = 0;     // all-to-all of K (V, dK, dV)

  bool any() const { return cp > 1 && forward_layers + backward_layers > 0; }

  /// What one layer's attention forward, and backward, take beyond their compute.
  double forward_layer_extra() const {
    if (all_to_all) return 2 * q_alltoall + 2 * kv_alltoall;
    return (cp - 1) * std::max(0.0, kv_send - forward_step);
  }
  double backward_layer_extra() const {
    if (all_to_all) return 2 * q_alltoall + 2 * kv_alltoall;
    return 2 * std::max(0.0, kv_send - backward_step) + (cp - 2) * std::max(0.0, kv_dkv_send - backward_step);
  }
  /// An F's, and a B's or I's (with the recomputed forwards).
  double forward_extra() const { return cp > 1 ? forward_layers * forward_layer_extra() : 0; }
  double backward_extra() const {
    return cp > 1 ? backward_layers * backward_layer_extra() + recomputed_layers * forward_layer_extra() : 0;
  }

  /// Messages (ring sends, or all-to-alls) per F and per B or I.
  int forward_messages() const { return cp > 1 ? forward_layers * (all_to_all ? 4 : cp - 1) : 0; }
  int backward_messages() const {
    if (cp == 1) return 0;
    return all_to_all ? 4 * (backward_layers + recomputed_layers) : cp * backward_layers + (cp - 1) * recomputed_layers;
  }
  /// Their bytes, given K and V's bytes (`kv`) and Q's (`q`) on the GPU: a send's size, an
  /// all-to-all's tensor on the GPU (of which it sends (cp − 1)/cp to the others).
  double forward_bytes(double kv, double q) const {
    if (cp == 1) return 0;
    return forward_layers * (all_to_all ? 2 * q + kv : (cp - 1) * kv);
  }
  double backward_bytes(double kv, double q) const {
    if (cp == 1) return 0;
    if (all_to_all) return (backward_layers + recomputed_layers) * (2 * q + kv);
    return backward_layers * 2.0 * (cp - 1) * kv + recomputed_layers * (cp - 1) * kv;
  }
};

}  // namespace pipegrid
