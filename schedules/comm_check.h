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

/// Throws InputError with one line naming the first broken rule, rank by rank and cell by cell; the
/// rules are docs/schedules.md's "What comm actions must keep" (among them: the messages between two
/// ranks are received in sending order, as NCCL matches them in posting order). The compute part must
/// keep validate_ops(); missing ops make a hang, not a broken rule, and deadlocks are comm_timing.h's.
void validate_comms(const Schedule& schedule, const OpLocator& locate_op = locate_in_program,
                    const CommLocator& locate_batch = locate_comm_batch);

}  // namespace pipegrid
