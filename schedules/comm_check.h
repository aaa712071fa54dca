// The rules a schedule's comm actions must keep (schedules read from a file may break any of them;
// a comm plan's output keeps them all, tests/schedules/comm_plan_test.cc).
#pragma once

#include <functional>
#include <string>

#include "schedules/schedule.h"
#include "schedules/validate.h"

namespace pipegrid {

/// Names a rank's comm batch in an error message: "rank 1, comm batch 3" for a lowered schedule,
/// "FILE:LINE:COLUMN" for one read from a file.
using CommLocator = std::function<std::string(int rank, std::size_t batch)>;
std::string locate_comm_batch(int rank, std::size_t batch);

/// Throws InputError with one line naming the first broken rule, rank by rank and cell by cell:
///  - a comm action names a known stage on its own rank and a micro-batch that goes through it, and
///    a transfer that exists: the stage it sends to or receives from is on another rank;
///  - a batch sits between two compute ops (positions in order, within the program);
///  - each message is sent once, after the op that produces it, and received once, before the op
///    that reads it;
///  - every result read on another rank is sent and received (read: by an op the reader runs);
///  - the messages from one rank to another are received in the order they are sent (NCCL matches
///    the messages between two ranks in posting order, so a crossed pair would swap their buffers).
/// The compute part must keep validate_ops(); it may miss ops (a receive whose sender skipped the op
/// that sends it is a hang, not a broken rule). Deadlocks of the order are not its business: the
/// comm engine finds them (comm_timing.h).
void validate_comms(const Schedule& schedule, const OpLocator& locate_op = locate_in_program,
                    const CommLocator& locate_batch = locate_comm_batch);

}  // namespace pipegrid
