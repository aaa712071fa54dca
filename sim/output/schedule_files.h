// What `pipegrid schedule` and `pipegrid check` write under --out DIR: the timed schedule's summary,
// its programs and the contention-free engines' trace — or, when it deadlocks, the cycle of waits and
// the trace of what ran before it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedules/comm_timing.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid::output {

/// DIR/summary.json, DIR/schedule.csv (the programs) and DIR/trace.csv (needs the timing's spans);
/// InputError when DIR cannot be made.
void write_schedule_files(const std::string& dir, const nlohmann::json& summary, const Schedule& schedule,
                          const Timing& timing, const std::vector<MessageSpan>& messages);

/// A deadlocked schedule's files: DIR/deadlock.json, DIR/trace.csv of what ran before it (`partial`,
/// with spans) and DIR/schedule.csv. No summary.json: nothing finished.
void write_schedule_deadlock_files(const std::string& dir, const nlohmann::json& deadlock, const Schedule& schedule,
                                   const Timing& partial, const std::vector<MessageSpan>& messages);

}  // namespace pipegrid::output
