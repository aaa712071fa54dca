// trace.csv of `pipegrid schedule` and `pipegrid check`: the contention-free engines' timeline in the
// columns `simulate` writes (output_files.h), so that one plotting script draws both.
#pragma once

#include <string>
#include <vector>

#include "schedules/comm_timing.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid::output {

/// Writes DIR/trace.csv: per rank, a compute row for each action of the ops that ran (timing.ops_run; both
/// halves of an overlapped pair, each with the pair's span, as simulate writes them), then a p2p row
/// for each message it sent (`messages`, start = flow start, end = arrival, peer = the receiver's
/// host, bytes 0: no bytes move). A rank is GPU R on host `rank R`, node R, tp = dp = 0, pp = R.
/// Needs timing.spans. IoError when the file cannot be written.
void write_schedule_trace(const std::string& dir, const Schedule& schedule, const Timing& timing,
                          const std::vector<MessageSpan>& messages);

}  // namespace pipegrid::output
