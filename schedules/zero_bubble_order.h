// The program shape ZB-H1 and ZB-H2 share (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", §2):
// 1F1B with its backward split into I (the input gradient, on the critical path) and W (the weight
// gradient, which nothing downstream waits for), so that W can be put off to fill bubbles.
#pragma once

#include <vector>

#include "schedules/action.h"

namespace pipegrid {

/// How one rank of a split-backward 1F1B runs its single stage: `forwards_first` forwards, then for
/// each micro-batch i in order I(i), W(i − weight_lag) once that exists, and the next forward while
/// any are left; the last `weight_lag` W's close the program.
///
/// A rank holds forwards_first + weight_lag activations at its peak (each lives until its W): the
/// paper's in-flight micro-batches, p for ZB-H1 and 2p − 1 for ZB-H2 on every rank.
struct SplitBackwardShape {
  int forwards_first = 1;  // forwards before the first I; capped at the micro-batches
  int weight_lag = 0;      // how many I's each W trails its own I by
};

std::vector<Op> split_backward_program(int stage, int microbatches, SplitBackwardShape shape);

}  // namespace pipegrid
