// The lowerings that follow one framework's own code each (comm_plan.h dispatches to them). Each fills
// schedule.comms, already sized to one empty list per rank, for the compute programs as they are, and
// throws InputError when the programs are not an order that framework produces.
#pragma once

#include "schedules/schedule.h"

namespace pipegrid {

/// DeepSeek's DualPipe and DualPipeV (dualpipe/dualpipe.py, dualpipev.py, step()): before every
/// compute (W included) one batch of the sends still pending and the receives that compute needs,
/// waited at once (_commit_and_wait_comm); the sends of an op wait for the next commit.
void lower_dualpipe(Schedule& schedule);

/// The zero-bubble repository's runtime (megatron/core/pipeline_parallel/zerobubble/): a SEND right
/// after its producer, a RECV posted early, before the compute that runs when the peer sends, and
/// waited just before its consumer; sends are never waited.
void lower_zb(Schedule& schedule);

/// Megatron-LM's forward_backward_pipelining_with_interleaving with batch_p2p_comm (its default).
void lower_megatron_interleaved(Schedule& schedule);

}  // namespace pipegrid
