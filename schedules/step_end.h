// What a step costs after a rank's last op, as the SimGrid executor charges it with analytic
// collectives (sim/exec/gpu_gradients.cc, gpu_actor.cc): its gradient reductions on its comm
// streams — launched when their gradients are ready, part-way through an op or at its end, run in
// launch order per stream —, the optimizer's check (a barrier, its latency) and update, and the
// distributed optimizer's parameter all-gathers. Plain numbers: the pricing is done above.
#pragma once

#include <cstddef>
#include <vector>

#include "schedules/op_times.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid {

/// One collective of a rank, of known (α-β) duration, on one of its comm streams.
struct StepCollective {
  /// Ready after `fraction` of the compute of the op at `position` of the rank's program (< 1: a
  /// bucket ready part-way through it), or at the op's end (1); `position` the program's size: after
  /// the last op.
  std::size_t position = 0;
  double fraction = 1;
  std::size_t stream = 0;
  double seconds = 0;
  /// Launched only once the streams have drained what came before (finalize_model_grads: the tied
  /// embeddings after the data-parallel reduction).
  bool after_grad_sync = false;
};

struct RankStepEnd {
  std::vector<StepCollective> reductions;  // in launch order
  double optimizer = 0;                    // the update's seconds
  std::vector<StepCollective> gathers;     // after the update (stream and seconds), waited before the step ends
};

/// When the rank may enter the optimizer's check: its gradients reduced. `finish` is when its
/// program (and its last sends) ended; `spans` its ops' spans as the engine recorded them.
/// `stream_free` (per stream, grown as needed) is left as the streams end.
double gradients_reduced(const std::vector<Op>& program, const OpTimes& times, const std::vector<OpSpan>& spans,
                         double finish, const std::vector<StepCollective>& reductions, std::vector<double>& stream_free);

/// When the rank's step ends: released from the check at `released`, the update, then its gathers.
double step_end(double released, const RankStepEnd& rank, std::vector<double>& stream_free);

/// The check's barrier: every member goes on `latency` after the last arrives.
double barrier_release(const std::vector<double>& arrivals, double latency);

}  // namespace pipegrid
