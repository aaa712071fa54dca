// Activation memory per rank, counted from the programs alone: ranks run their ops one at a time in
// program order, so the order of starts and ends on a rank does not depend on the timing.
#pragma once

#include <vector>

#include "schedules/schedule.h"

namespace pipegrid {

/// Peak live activations per rank, in units of one micro-batch's activations on one virtual stage.
/// An activation is live from the start of its F until the end of the backward that frees it: B, or
/// W where the backward is split (W still reads the stage's inputs). In an overlapped pair the
/// forward's activation is counted before the backward's is freed, since both are held while the
/// pair runs.
std::vector<int> peak_activations(const Schedule& schedule);

/// What one micro-batch's activations weigh on each virtual stage, in any unit (bytes, say): all of
/// `per_stage[s]` from the start of its F; after its I only `kept_for_weight_gradient[s]` (what W
/// still reads: the inputs of the weight matmuls), freed by W; a B frees all of it at once.
struct ActivationWeights {
  std::vector<double> per_stage;
  std::vector<double> kept_for_weight_gradient;
};

/// Peak live activation memory per rank under those weights, walking each rank's program in order
/// (an I frees its part at its end, W the rest at its end, B all at its end).
std::vector<double> peak_activation_memory(const Schedule& schedule, const ActivationWeights& weights);

}  // namespace pipegrid
