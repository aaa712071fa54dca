// Messages between GPUs with the semantics the user chose: an eager send whose flow starts at once
// (async), or a rendezvous whose flow starts when both sides have posted (blocking, batched).
#pragma once

#include <cstdint>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <deque>
#include <memory>
#include <utility>
#include <unordered_map>
#include <vector>

#include "sim/network/network.h"

namespace pipegrid::sim {

/// Names one message to one GPU: a pipeline result or a step of a collective (see tags.h).
struct MessageKey {
  int dst_gpu;
  std::uint64_t tag;
  friend bool operator==(const MessageKey&, const MessageKey&) = default;
};

/// What a blocked GPU is waiting for, for the deadlock report.
struct BlockedOn {
  bool blocked = false;
  bool sending = false;  // waiting for the peer to receive (rendezvous) rather than to send
  int peer_gpu = -1;
  FlowInfo flow{};       // the message it waits on
};

/// When a message's flow ran: [start, end].
struct FlowSpan {
  double start = 0;
  double end = 0;
};

/// The messages in flight between the two sides of each transfer. Each side posts, then waits; an
/// entry lives from the first post until both sides have waited (the eager sender never waits: its
/// flow outlives it, as a NCCL send's data outlives the kernel that queued it).
///
/// A side that must wait suspends its actor until the flow has ended; the flow's completion resumes
/// it. SimGrid sees a blocked actor — and reports a deadlock when every actor is — and a wait costs
/// one suspension whether the peer has posted yet or not (a condition variable would cost four
/// simcalls with its mutex, and waiting on the flow another one).
class Transfers {
 public:
  Transfers(Network& network, int gpus);

  /// Posts the sending side. Eager: the flow starts now. Otherwise it starts when the receiver posts.
  /// An eager sender that will wait for its flow (to send in order on one channel) says so.
  /// On a channel (`channel` ≥ 0, one of open_channels', see Channel) the flow also waits for the
  /// channel's earlier messages.
  void post_send(const MessageKey& key, const FlowInfo& flow, bool eager, bool sender_waits = false,
                 std::int64_t channel = -1);
  /// Posts the receiving side (starting the flow of a rendezvous whose sender already posted).
  /// `expected` describes the message as the receiver knows it, for deadlock reports.
  void post_receive(const MessageKey& key, const FlowInfo& expected);
  /// `count` new channels, numbered from the one returned: a pair of GPUs opens its K channels once.
  std::int64_t open_channels(int count);
  /// Blocks one side of the message until its flow has ended; returns the flow's span. Suspending
  /// the actor would also suspend its other activities: an actor that computes while it waits
  /// (an overlapped pair's compute running under its all-to-all) asks for `keep_activities_running`
  /// and waits on a condition variable instead.
  FlowSpan wait(const MessageKey& key, bool as_sender, bool keep_activities_running = false);
  /// Blocks the calling actor until every message of `waits` (key, as sender) has ended, as one wait
  /// of each: the actor of a lockstep TP group (tp_lockstep.h) waits for one message of each of its
  /// members at once, each member's waiter showing what it waits for. At most one message per GPU.
  /// Resumed once, by the last flow to end. Returns the spans in the order of `waits`.
  std::vector<FlowSpan> wait_all(const std::vector<std::pair<MessageKey, bool>>& waits);
  /// The same, into `spans` (cleared first): a caller that waits often keeps one vector for them.
  void wait_all(const std::vector<std::pair<MessageKey, bool>>& waits, std::vector<FlowSpan>& spans);
  Network& network() { return network_; }
  /// Starts again the flow of a message whose flow a link going down cut (--on-failure wait): its
  /// sides go on waiting for it.
  void resend(const FlowInfo& flow);
  /// Network listener: a message's flow has ended.
  void flow_ended(const FlowInfo& flow, double start, double end);

  /// What the GPU is blocked on: its compute stream's wait if it waits on a message, else the first
  /// of its comm streams that does.
  const BlockedOn& blocked_on(int gpu) const;
  /// What the GPU's compute stream alone is blocked on (not blocked while it waits for a comm stream).
  const BlockedOn& compute_blocked_on(int gpu) const { return waiters_[gpu].front().blocked; }
  /// The calling actor waits as one of the GPU's comm streams (comm_stream.h) rather than as its
  /// compute stream: each stream of a GPU has its own waiter.
  void register_comm_stream(int gpu);

 private:
  struct KeyHash {
    std::size_t operator()(const MessageKey& k) const {
      return std::hash<std::uint64_t>()(k.tag * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(k.dst_gpu));
    }
  };
  struct Entry;
  /// NCCL-like: the messages of one channel travel in the order they were sent, each flow starting
  /// when the one before it has ended. The later one's bytes follow the earlier's on the wire, so it
  /// pays only the part of its latency that was not already past while it queued: ready at r and
  /// started at t, it pays max(0, r + L − t) of its latency L (Network::start_flow's fraction, where
  /// SimGrid allows it; otherwise all of L).
  struct Channel {
    std::vector<Entry*> queue;  // sent, not started, in order; `next` is the head
    std::size_t next = 0;
    bool busy = false;
    // Its route's latency (Network::effective_latency, fixed once the route is known), found at its
    // first message: every message of a channel goes between the same two GPUs.
    double latency = -1;
  };
  struct Entry {
    FlowInfo flow{};
    std::int64_t channel = -1;
    double sent_at = 0;
    double received_at = 0;
    bool sent = false;
    bool received = false;
    bool eager = false;
    bool starting = false;  // set before the flow's start, which yields to other actors
    bool done = false;
    FlowSpan span;
    // Waits still to come: the receiver's, which always comes, and the sender's if it waits. Counted
    // from the start, so that a sender done before its receiver posts cannot drop the entry.
    int waits_left = 1;
    bool started = false;  // its flow is on the wire (or has been)
  };
  struct Waiter {
    simgrid::s4u::ActorPtr actor;  // set while waiting
    BlockedOn blocked;
    MessageKey key{};               // what it waits for
    bool on_condition = false;      // waiting on `ended` rather than suspended
    std::shared_ptr<int> pending;   // in a wait_all: its messages not yet ended
    simgrid::s4u::MutexPtr mutex;   // created on first use
    simgrid::s4u::ConditionVariablePtr ended;
  };

  /// Starts the entry's flow. Starting is a simcall: other actors run meanwhile and may grow the
  /// table, which moves no element of an unordered_map; only an entry's last wait erases it, after its
  /// flow has ended. So an entry is held by reference across the start, and by a side that waits on it.
  void start(Entry& entry, double latency_fraction = 1);
  /// Starts the channel's head message if it is ready (sent, and received unless eager) and the
  /// channel is free.
  void advance(std::int64_t channel);
  bool ready(const Entry& entry) const { return entry.sent && (entry.eager || entry.received); }

  Network& network_;
  std::unordered_map<MessageKey, Entry, KeyHash> entries_;
  std::vector<Channel> channels_;  // by number (open_channels): looked up per message, so not hashed
  // Per GPU: [0] its compute stream, then its comm streams (a deque: a waiting stream keeps its
  // reference while another registers).
  std::vector<std::deque<Waiter>> waiters_;
  std::unordered_map<long, std::pair<int, std::size_t>> lane_of_actor_;  // comm stream actor → GPU, lane
  Waiter& waiter_of(int gpu);  // the calling actor's waiter for that GPU
};

}  // namespace pipegrid::sim
