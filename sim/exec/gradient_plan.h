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

/// The reductions of `gpu`'s gradients in launch order (by position, then fraction):
///  - data-parallel: for each virtual stage, its gradients round the ring of the GPUs that hold its
///    model stage — the data-parallel replicas, and for DualPipe both copies of the stage with theirs,
///    summed as one group. With overlap on, a stage's gradients start when its last backward (the
///    last W where the backward is split) has produced them; Megatron splits into buckets of
///    `grad_bucket_bytes` only the first model chunk of pipeline rank 0 (distributed_data_parallel.py:
///    bucket_size is None on other ranks and chunks) — and its other copy, in DualPipe — each ready
///    part-way through that
///    backward, in the backward's order (last layers first). With overlap off, one all-reduce of all
///    the rank's gradients per ring after its last op.
///  - after the step: the routed experts' gradients (over the replicas holding the same experts), then
///    the tied embeddings between the first and the last stage, in finalize_model_grads' order. The
///    GPU issues the step-end collectives of one phase, waits for every one of its streams, then
///    issues the next phase's (after_grad_sync), so a GPU stuck in its first never enters its second,
///    as a rank's NCCL collectives on one stream run in issue order. --grad-sync-order may put the
///    embeddings first: then the data-parallel reductions issued at the step's end (all of them
///    with --grad-overlap off) wait for them; buckets the backward has issued are not held back.
std::vector<GradientReduction> plan_gradient_reductions(const JobPlan& plan, int gpu);

}  // namespace pipegrid::sim
