// The rules a schedule must keep before it can be timed or simulated.
#pragma once

#include <functional>
#include <string>

#include "schedules/schedule.h"

namespace pipegrid {

/// Names the op at (rank, position) in an error message: "rank 1, position 3" for a generated
/// schedule, "FILE:LINE:COLUMN" for one read from a file.
using OpLocator = std::function<std::string(int rank, std::size_t position)>;
std::string locate_in_program(int rank, std::size_t position);

/// Throws InputError with one line naming the first broken rule, in a fixed order (rank by rank,
/// position by position, then what is missing stage by stage) so that the same schedule always gets
/// the same message; the rules are docs/schedules.md's "What a schedule must keep". Deadlocks are
/// deadlock.h's. validate() is validate_ops() then validate_complete().
void validate(const Schedule& schedule, const OpLocator& locate = locate_in_program);

/// Every rule but completeness: what each op is, and its order against what its rank ran before. A
/// schedule that keeps these but misses ops is one a framework would run — and where another rank
/// waits for a missing op, hang in (find_deadlock reports that as a deadlock).
void validate_ops(const Schedule& schedule, const OpLocator& locate = locate_in_program);

/// The last rule: each stage runs F once per micro-batch and B, or I and W. Throws InputError
/// naming the first stage and micro-batch that misses one ("stage 1, micro-batch 3: no backward (B,
/// or I and W) on rank 1"); is_complete() says whether it would.
void validate_complete(const Schedule& schedule);
bool is_complete(const Schedule& schedule);

}  // namespace pipegrid
