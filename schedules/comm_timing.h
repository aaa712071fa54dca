// The contention-free engine for schedules with comm actions: each rank runs its compute ops and
// comm batches in order, in the p2p semantics the user chose, with every message taking a fixed
// latency on NCCL-like channels. The SimGrid executor runs the same actions with the same semantics
// (sim/exec/gpu_actor.cc); on an ideal network the two agree exactly (tests/exec/engines_agree_test.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/op_times.h"
#include "schedules/comm_check.h"
#include "schedules/deadlock_hint.h"
#include "schedules/p2p_mode.h"
#include "schedules/results.h"
#include "schedules/timing.h"

namespace pipegrid {

/// A message's flow alone on its route (the contention-free view of a SimGrid flow): its latency,
/// then its bytes at the route's bottleneck bandwidth.
struct MessageCost {
  double latency = 0;
  double transfer = 0;  // bytes / bandwidth
};

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
  /// Per virtual stage, the flow of the activation it sends to the next stage and of the gradient it
  /// sends back (by the stage of the result). Empty: every message takes p2p_latency and no time on
  /// the wire. Given, a message on a busy channel starts when the one before it ends, having spent
  /// its queueing time as latency (SimGrid's flows, sim/network/transfers.cc): it arrives at
  /// max(end before it, ready + latency) + transfer.
  std::vector<MessageCost> forward_messages = {}, backward_messages = {};
};

/// The waits of a lowered schedule that cannot finish: cycle[i] waits for cycle[i + 1] (the last for
/// the first) — or, when `open`, the last waits for an action its rank never posts: that rank ends
/// its step (or is blocked for ever elsewhere) without it, e.g. a receive whose sender skipped the op.
struct CommDeadlock {
  struct Wait {
    int rank;
    bool in_batch;         // blocked at a comm batch waited at once (else at a compute op or the end)
    std::size_t position;  // the batch's index in comms[rank], or the op's in programs[rank]
    CommAction awaited;    // the peer's action it needs: a SEND not yet posted, or a RECV (rendezvous);
                           // for a result of its own rank, the SEND of that result
    int awaited_rank;
    WaitKind what;  // PeerSend, PeerReceive, or Compute (a result of its own rank)
  };
  std::vector<Wait> cycle;  // starts at its lowest rank; an open chain at the lowest blocked rank
  bool open = false;
  std::vector<Wait> blocked;  // every rank that did not finish, by rank

  bool finished(int rank) const;
  /// "rank 0 waits for rank 1 to post 1RECV_B0, which waits for rank 0 to post 0SEND_F1"; open:
  /// "rank 0 waits for rank 1 to post 1SEND_B1, which ends its step without posting it".
  std::string chain() const;
  /// The shape of the waits (deadlock_hint.h); an open chain names the action never posted.
  DeadlockHint hint() const;
  /// chain(), where each blocked rank is blocked (the chain's first), one line each, last "fix: <hint>".
  std::string report(const Schedule& schedule, const OpLocator& locate_op = locate_in_program,
                     const CommLocator& locate_batch = locate_comm_batch) const;
};

/// One message's flow: from its start (both sides posted, as the p2p mode requires, and the channel
/// free) to its arrival at the receiver.
struct MessageSpan {
  Result result;
  int from;
  int to;
  double start;
  double end;
};

struct CommTiming {
  Timing timing;                      // partial when the run deadlocks
  std::vector<MessageSpan> messages;  // with record_spans: every message whose flow started, in start order
  std::optional<CommDeadlock> deadlock;
};

/// Times a lowered schedule that keeps validate() and validate_comms(). A rank that must wait parks
/// on the one message or result it waits for and is woken when that is decided, so every action is
/// looked at a bounded number of times. A schedule that misses compute ops (validate_ops() only) is
/// run only to see where it hangs: its timing then means nothing else.
CommTiming time_lowered(const Schedule& schedule, const OpTimes& times, const CommTimingOptions& options = {});

}  // namespace pipegrid
