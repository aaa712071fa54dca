// One op of a mixture-of-experts stage on one GPU: a chunk's four phases — attention, dispatch,
// experts, combine forward; combine, experts, dispatch, attention backward (DeepSeek-V3 report,
// §3.2.1) — one after the other, or, in an overlapped F&B pair, each all-to-all of one chunk under a
// computation of the other.
#pragma once

#include <cstddef>
#include <string_view>

#include "sim/exec/expert_group.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

class MoeOp {
 public:
  MoeOp(Job& job, int gpu, double speed);

  /// Whether the op has an action on an MoE stage.
  bool applies(const Op& op) const;

  /// Runs it. Alone, every phase waits for the one before: the all-to-alls are exposed. In an (F;B)
  /// or (F;I) pair of two MoE chunks, four slots each run one chunk's computation with the other's
  /// all-to-all (DeepSeek-V3's Figure 4): backward combine ∥ forward attention, forward dispatch ∥
  /// backward experts, backward dispatch ∥ forward experts, forward combine ∥ backward attention;
  /// the communication kernels take `comm_sm_fraction` of the SMs, so the pair computes at
  /// (1 − fraction) of the GPU's speed, and an all-to-all shows only where it outlasts its slot's
  /// computation.
  void run(std::size_t position, const Op& op);

 private:
  struct Chunk;  // one action's phases
  Chunk chunk_of(const Action& action) const;
  void compute(const Action& action, std::string_view phase, double seconds);
  void communicate(const Action& action, std::string_view phase, ExpertGroup::Direction direction, double bytes,
                   std::size_t position, int tag_phase);
  void run_alone(std::size_t position, const Action& action);
  void run_pair(std::size_t position, const Action& forward, const Action& backward);

  Job& job_;
  int gpu_;
  GpuAccount& account_;
  double speed_;
  ExpertGroup group_;
};

}  // namespace pipegrid::sim
