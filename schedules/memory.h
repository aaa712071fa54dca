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

}  // namespace pipegrid
