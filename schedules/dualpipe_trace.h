// The control flow of DeepSeek's DualPipe.step() and DualPipeV.step() (deepseek-ai/DualPipe at
// 3da1bbe, dualpipe/dualpipe.py and dualpipev.py) walked for one rank: the computes it runs and the
// comm batches it posts, in pipegrid's notation. What lower_dualpipe (framework_plans.h) checks a
// program against and takes the batches from.
#pragma once

#include <vector>

#include "schedules/schedule.h"

namespace pipegrid {

enum class DualPipeVariant {
  DualPipe,   // dualpipe.py: two directions over the ranks (StageLayout::two_directions)
  DualPipeV,  // dualpipev.py: one chain folded into a V (StageLayout::chain over v_placement)
};

/// What step() does on one rank.
struct DualPipeStep {
  /// The computes in order: an F, a B (I when zero bubble splits it, `enable_zb`), an overlapped
  /// (F;B) pair (`_forward_backward_chunk`), or a W (`_weight_chunk`, DeepSeek's WeightGradStore.pop).
  std::vector<Op> ops;
  /// Every `_commit_and_wait_comm` that posts something: `before` the compute it precedes (ops.size()
  /// for the one at the end of step()), waited at once, the actions in the order DualPipe appends them.
  std::vector<CommBatch> batches;
};

/// Walks step() on `rank` of `ranks`. The layout must be the variant's (lower_dualpipe checks it):
/// DeepSeek's module[0] on rank r is virtual stage r, module[1] is stage 2·ranks − 1 − r
/// (examples/example_dualpipe.py 138, example_dualpipev.py 137), and each post's peer is the
/// layout's neighbour stage. Throws std::logic_error where DualPipe and the layout disagree on a
/// transfer.
DualPipeStep trace_dualpipe_step(DualPipeVariant variant, const StageLayout& layout, int ranks, int rank);

}  // namespace pipegrid
