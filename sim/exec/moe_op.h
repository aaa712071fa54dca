// One op of a mixture-of-experts stage on one GPU: a chunk's four phases — attention, dispatch,
// experts, combine forward; combine, experts, dispatch, attention backward (DeepSeek-V3 report,
// §3.2.1) — one after the other, or, in an overlapped F&B pair, each all-to-all of one chunk under a
// computation of the other.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "sim/exec/expert_group.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

class MoeOp {
 public:
  /// Runs an action's tensor-parallel collectives (sequence parallelism's, at --tp-comm's fidelity),
  /// their rings numbered from `first_ring` within the op: the rank's actor owns them (gpu_compute.cc).
  using TpCollectives = std::function<void(std::size_t position, const Action& action, int first_ring)>;

  MoeOp(Job& job, int gpu, double speed, TpCollectives tp_collectives);

  /// Whether the op has an action on an MoE stage.
  bool applies(const Op& op) const;

  /// Runs it. Alone, every phase waits for the one before: the all-to-alls are exposed, and so are
  /// the ETP group's all-gather after dispatch and reduce-scatter before combine (Megatron-Core's
  /// MoEAlltoAllTokenDispatcher; backward the reduce-scatter's gradient, an all-gather, after the
  /// combine's gradient and the all-gather's, a reduce-scatter, before the dispatch's), and the
  /// attention's TP collectives after its compute. In an (F;B)
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
  void run_alone(std::size_t position, const Action& action, int first_ring);
  void run_pair(std::size_t position, const Action& forward, const Action& backward);
  /// One ring half of the ETP group over the tokens its members received (`assignments` this GPU's),
  /// at --ep-comm's fidelity. `ring`: 0-3, forward all-gather and reduce-scatter, backward likewise.
  void expert_tensor_ring(const Action& action, std::size_t position, int ring, double assignments,
                          double bytes_per_assignment);

  Job& job_;
  int gpu_;
  GpuAccount& account_;
  double speed_;
  ExpertGroup group_;
  TpCollectives tp_collectives_;
  std::vector<int> etp_group_;  // the GPUs holding the same experts' other column slices
  int etp_member_ = 0;
  double etp_bytes_[2] = {-1, -1}, etp_seconds_[2] = {0, 0};  // the last analytic ring of each half
};

}  // namespace pipegrid::sim
