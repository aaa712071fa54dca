// Which result a comm action carries, and the comm actions that carry a result: the link between a
// rank's sends and receives and the data dependencies of results.h.
#pragma once

#include <optional>

#include "schedules/comm_action.h"
#include "schedules/results.h"

namespace pipegrid {

/// The result a comm action carries: a SEND names its own stage's output, a RECV the output of the
/// stage it reads from (prev for RECV_F, next for RECV_B). nullopt when that stage does not exist
/// (a RECV_F at a first stage, a SEND_F at a last one, …).
std::optional<Result> message_of(const StageLayout& layout, const CommAction& action);

/// The comm actions that send and receive a result.
CommAction send_of(const Result& result);
CommAction receive_of(const StageLayout& layout, const Result& result);

/// The rank that sends a result and the one that receives it.
inline int sender_rank(const Schedule& s, const Result& r) { return s.rank_of(r.stage); }
inline int receiver_rank(const Schedule& s, const Result& r) { return s.rank_of(reader_stage(s.layout, r)); }

}  // namespace pipegrid
