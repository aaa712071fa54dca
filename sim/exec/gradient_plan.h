// Which gradient reductions a GPU takes part in, over which ring, and when each may start — the way
// Megatron-LM's DistributedDataParallel reduces them (megatron/core/distributed/): gradients in
// buckets, a bucket reduced as soon as the last backward of its layers has produced them
// (--overlap-grad-reduce), the rest after the step (finalize_model_grads).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/network/collectives.h"
#include "sim/network/network.h"
#include "sim/exec/exec_options.h"
#include "sim/exec/placement.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

struct JobPlan;

/// One collective over a ring of GPUs: a bucket of data-parallel gradients, the tied embeddings, …
struct GradientReduction {
  std::string_view kind;  // the trace's name: dp-allreduce, expert-dp-allreduce, embedding-allreduce
  FlowKind flow_kind;
  TagSpace space;
  std::uint64_t context;  // tells the collectives of one space apart; the same on every member
  std::vector<int> group;  // GPUs in ring order
  int member = 0;          // this GPU's index in `group`
  double bytes = 0;
  /// When its gradients are ready: after `fraction` of the compute of the op at `position` of the
  /// rank's program (the last backward of its layers), or at the end of the program when `position`
  /// is the program's size.
  std::size_t position = 0;
  double fraction = 1;
  /// The ring the stream it runs on belongs to: collectives of one ring run in launch order, those
  /// of different rings (NCCL communicators) independently.
  std::size_t stream = 0;
  /// Started only once the data-parallel reductions have ended (finalize_model_grads runs
  /// finish_grad_sync before the embedding all-reduce).
  bool after_grad_sync = false;
  RingPhases phases = RingPhases::AllReduce;  // a reduce-scatter with the distributed optimizer
  /// With the distributed optimizer, the stage's parameters this ring all-gathers after the update,
  /// and the virtual stage whose next forward needs them (-1: none).
  double parameter_bytes = 0;
  int stage = -1;
};

/// Whether the GPU at `at` all-reduces its tied embeddings before its data-parallel gradients at the
/// step's end (`first_rank`: the pipeline rank of the first stage).
bool embedding_goes_first(GradSyncOrder order, const GpuCoordinates& at, int first_rank);

/// The reductions of `gpu`'s gradients in launch order (by position, then fraction): each virtual
/// stage's data-parallel ring over the GPUs holding its model stage (DualPipe's two copies with their
/// replicas as one group), started by its last backward with overlap on (in buckets on pipeline rank 0's
/// first chunk only, as Megatron's distributed_data_parallel.py does), else after the rank's last op;
/// then the step-end phases (routed experts, tied embeddings, in finalize_model_grads' order; the
/// embeddings first with --grad-sync-order), each issued once the GPU's streams have ended the last.
/// ZeRO-3 replaces a stage's data-parallel ring by a reduce-scatter per FSDP unit (gradient_plan.cc).
std::vector<GradientReduction> plan_gradient_reductions(const JobPlan& plan, int gpu);

}  // namespace pipegrid::sim
