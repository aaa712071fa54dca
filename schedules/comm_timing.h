// The contention-free engine for schedules with comm actions: each rank runs its compute ops and
// comm batches in order, in the p2p semantics the user chose, with every message taking a fixed
// latency on NCCL-like channels. The SimGrid executor runs the same actions with the same semantics
// (sim/exec/gpu_actor.cc); on an ideal network the two agree exactly (tests/exec/engines_agree_test.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/comm_check.h"
#include "schedules/p2p_mode.h"
#include "schedules/timing.h"

namespace pipegrid {

struct CommTimingOptions {
  double p2p_latency = 0;  // L: a message reaches its receiver L after its flow starts
  /// Async: a send completes when posted (the data waits at the receiver). Rendezvous: a message's
  /// flow starts once its receive is posted too, and the send completes when the flow ends.
  P2pMode p2p = P2pMode::Async;
  /// Per ordered pair of ranks: the n-th message from one to the other travels on channel n mod K,
  /// and starts no earlier than the message before it on that channel (NCCL carries a channel's
  /// messages in order; this engine moves no bytes, so "after it" is "not before it").
  int channels = 1;
  bool record_spans = false;
};

/// A cycle of waits of a lowered schedule: cycle[i] waits for cycle[i + 1] (the last for the first).
struct CommDeadlock {
  struct Wait {
    int rank;
    bool in_batch;         // blocked at a comm batch waited at once (else at a compute op or the end)
    std::size_t position;  // the batch's index in comms[rank], or the op's in programs[rank]
    CommAction awaited;    // the peer's action it needs: a SEND not yet posted, or a RECV (rendezvous)
    int awaited_rank;
  };
  std::vector<Wait> cycle;  // starts at its lowest rank
  /// "rank 0 waits for rank 1 to post 1RECV_B0, which waits for rank 0 to post 0SEND_F1".
  std::string chain() const;
  /// chain() and where each rank of the cycle is blocked, one line each.
  std::string report(const Schedule& schedule, const OpLocator& locate_op = locate_in_program,
                     const CommLocator& locate_batch = locate_comm_batch) const;
};

struct CommTiming {
  Timing timing;  // partial when the run deadlocks
  std::optional<CommDeadlock> deadlock;
};

/// Times a lowered schedule that keeps validate() and validate_comms(). A rank that must wait parks
/// on the one message or result it waits for and is woken when that is decided, so every action is
/// looked at a bounded number of times.
CommTiming time_lowered(const Schedule& schedule, const ActionTimes& times, const CommTimingOptions& options = {});

}  // namespace pipegrid
