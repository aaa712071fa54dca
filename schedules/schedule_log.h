// What the schedule library logs (common/log.h's `schedules` logger): at debug a schedule's actions
// once a comm plan has lowered it and the checker's verdict on its compute order, at trace each rank's
// program as schedule.csv writes it.
#pragma once

#include <string_view>

#include "schedules/deadlock.h"
#include "schedules/schedule.h"

namespace pipegrid {

/// "schedule 1f1b: 4 ranks, 32 compute ops, 48 comm actions in 24 batches (lowered by the megatron
/// plan)"; `plan` empty: the schedule's file wrote them.
void log_lowered(const Schedule& lowered, std::string_view plan);
/// "schedule 1f1b: 4 ranks, 8 micro-batches, 1 chunk, 32 compute ops; checked: no deadlock" (or the
/// deadlock's chain).
void log_checked(const Schedule& schedule, const Deadlock* deadlock);

}  // namespace pipegrid
