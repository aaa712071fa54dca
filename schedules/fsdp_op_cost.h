// What ZeRO-3's parameter all-gathers add to an op, as PyTorch FSDP2 runs them under torchtitan
// (torchtitan/parallelisms/parallelize_llama.py apply_fsdp: fully_shard per TransformerBlock, the
// rest of the stage — embeddings, final norm, output — as the root unit). Shared by the executor
// (sim/exec/gpu_fsdp.cc) and the contention-free engine (op_times.h), so that the two agree to the bit.
#pragma once

#include <vector>

#include "schedules/action.h"
#include "schedules/schedule.h"

namespace pipegrid {

/// When a stage's units are gathered (ExecOptions' fsdp mode).
enum class FsdpGathers {
  None,
  /// Without a pipeline (torchtitan's "default" policy, pp 1): before every forward and every backward;
  /// the last block is not resharded after its forward (FSDP would gather it again at once), so a
  /// backward gathers the root and the other blocks.
  PerOpKeepLast,
  /// --fsdp-reshard-after-forward ("always"): every unit before every forward and every backward.
  PerOp,
  /// With a pipeline (torchtitan: reshard_after_forward False for PP stages, and
  /// torch.distributed.pipelining's stage keeping the parameters unsharded between micro-batches):
  /// once per step, before the stage's first forward.
  OncePerStep,
};

/// A stage's FSDP units on one GPU: the root (what is not a transformer block; 0 on a middle stage)
/// and `blocks` blocks of equal size.
struct FsdpUnits {
  double root = 0;   // its all-gather's seconds (or bytes)
  double block = 0;
  int blocks = 0;
};

/// The gathers of an op in the order FSDP2 issues them and the compute each unit does after its
/// gather: forward the root, then blocks 1…L; backward the root (its output projection comes first),
/// then blocks L…1. The op's compute is shared evenly by its blocks (the root's embedding and head
/// fold into them); without blocks the root computes it all.
struct FsdpOpUnits {
  std::vector<double> gather;   // seconds of each unit's all-gather, 0 for a unit not gathered
  std::vector<double> compute;  // seconds of compute after it
};
FsdpOpUnits fsdp_op_units(const FsdpUnits& units, double compute_seconds, bool backward, bool keep_last_block);

/// One unit of prefetch (FSDP2's implicit forward prefetch, its default explicit backward prefetch
/// of one): the gather of unit k + 1 is issued when unit k's compute may start, on the all-gather
/// stream behind unit k's; unit k computes once its gather and unit k − 1 have ended.
struct FsdpOpTiming {
  double exposed = 0;  // what the op takes beyond its compute
  std::vector<double> gather_start, gather_end;  // from the op's start
};
FsdpOpTiming fsdp_op_timing(const FsdpOpUnits& units);

/// Whether `a` (of a stage of `schedule`) gathers its stage's units under `mode`: per op, every F
/// and every B or I (a W needs no parameters: it reads activations and gradients); once per step,
/// the stage's first F in its rank's program (`first_forward`: its micro-batch, first_forwards).
bool fsdp_gathers(FsdpGathers mode, const Action& a, int first_forward);
/// Per virtual stage, the micro-batch of its first F in its rank's program (-1: none).
std::vector<int> first_forwards(const Schedule& schedule);

}  // namespace pipegrid
