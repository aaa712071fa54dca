#include "schedules/comm_timing.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "schedules/messages.h"
#include "schedules/rank_engine.h"
#include "schedules/wait_chain.h"

namespace pipegrid {

namespace {

constexpr double kUnknown = -1;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Message {
  double send_posted = kUnknown;
  double receive_posted = kUnknown;
  double start = kUnknown;  // decided once its sides (and the message before it on its channel) allow
  double end = kUnknown;
  std::size_t before_on_channel = kNone;
  std::size_t after_on_channel = kNone;
};

// What a parked rank waits for.
struct Park {
  enum What { Nothing, MessageEnd, Result } what = Nothing;
  std::size_t index = kNone;
};

class Engine : public RankEngine<Engine> {
 public:
  Engine(const Schedule& s, const OpTimes& times, const CommTimingOptions& options)
      : RankEngine(s, times, options.record_spans),
        options_(options),
        priced_(!options.forward_messages.empty()),
        messages_(index_.size()),
        batch_(s.ranks, 0),
        posted_(s.ranks, false),
        finished_(s.ranks, 0),
        park_(s.ranks),
        late_sends_(s.ranks),
        end_wait_(s.ranks, 0) {
    link_channels();
    for (int rank = 0; rank < s.ranks; ++rank)
      for (const CommBatch& batch : batches(rank))
        for (const CommAction& a : batch.actions)
          if (batch.wait == CommWait::AtUse && is_send(a.kind))
            late_sends_[rank].push_back(index_(*message_of(s.layout, a)));
  }

  CommTiming run() {
    run_ranks();
    CommTiming result;
    result.timing = std::move(timing_);
    if (std::find(finished_.begin(), finished_.end(), 0) != finished_.end()) result.deadlock = deadlock();
    std::stable_sort(spans_.begin(), spans_.end(),
                     [](const MessageSpan& a, const MessageSpan& b) { return a.start < b.start; });
    result.messages = std::move(spans_);
    return result;
  }

 private:
  friend class RankEngine<Engine>;

  const std::vector<CommBatch>& batches(int rank) const { return schedule_.comms[rank]; }

  // Numbers each ordered pair's messages in the sender's posting order and chains each to the one
  // before it on its channel.
  void link_channels() {
    std::map<std::pair<int, int>, std::vector<std::size_t>> last;  // per pair: last message per channel
    std::map<std::pair<int, int>, std::size_t> count;
    for (int rank = 0; rank < schedule_.ranks; ++rank)
      for (const CommBatch& batch : batches(rank))
        for (const CommAction& a : batch.actions) {
          if (!is_send(a.kind)) continue;
          const Result r = *message_of(schedule_.layout, a);
          const std::pair<int, int> pair{rank, receiver_rank(schedule_, r)};
          auto& channels = last[pair];
          channels.resize(static_cast<std::size_t>(options_.channels), kNone);
          const std::size_t channel = count[pair]++ % channels.size();
          const std::size_t m = index_(r);
          if (channels[channel] != kNone) {
            messages_[m].before_on_channel = channels[channel];
            messages_[channels[channel]].after_on_channel = m;
          }
          channels[channel] = m;
        }
  }

  // Runs the rank's next item; false when it must wait (parked) or has finished.
  bool step(int rank) {
    if (finished_[rank]) return false;
    const auto& comm = batches(rank);
    std::size_t& b = batch_[rank];
    std::size_t& k = op_[rank];
    if (b < comm.size() && comm[b].before <= k) return run_batch(rank, comm[b]);
    if (k < schedule_.programs[rank].size()) return run_op(rank);
    // The end of the step: under rendezvous, the sends waited at their use are waited here.
    if (options_.p2p == P2pMode::Rendezvous)
      for (auto& next = end_wait_[rank]; next < late_sends_[rank].size(); ++next) {
        const std::size_t m = late_sends_[rank][next];
        if (!wait_for_end(rank, m)) return false;
        now_[rank] = std::max(now_[rank], messages_[m].end);
      }
    finished_[rank] = 1;
    return false;
  }

  bool run_batch(int rank, const CommBatch& batch) {
    if (!posted_[rank]) {
      posted_[rank] = true;
      for (const CommAction& a : batch.actions) {
        const std::size_t m = index_(*message_of(schedule_.layout, a));
        (is_send(a.kind) ? messages_[m].send_posted : messages_[m].receive_posted) = now_[rank];
        decide(m);
      }
    }
    if (batch.wait == CommWait::Now) {
      double until = now_[rank];
      for (const CommAction& a : batch.actions) {
        const std::size_t m = index_(*message_of(schedule_.layout, a));
        if (is_send(a.kind) && options_.p2p == P2pMode::Async) continue;  // done when posted
        if (!wait_for_end(rank, m)) return false;
        until = std::max(until, messages_[m].end);
      }
      now_[rank] = until;
    }
    posted_[rank] = false;
    ++batch_[rank];
    return true;
  }

  // An input from another rank is there when its message arrives; one of the rank's own when computed.
  std::optional<double> input_ready(int rank, const Result& input, std::size_t needed) {
    if (schedule_.rank_of(input.stage) != rank) {
      if (!wait_for_end(rank, needed)) return std::nullopt;
      return messages_[needed].end;
    }
    if (done_[needed] == kNotDone) {
      park_[rank] = {Park::Result, needed};
      return std::nullopt;
    }
    return done_[needed];
  }

  // A result read on its own rank wakes nobody: the rank parked on it waits for its own later op.
  void produced(const Result& /*result*/, std::size_t /*filled*/) {}

  // True when the message's end is decided; otherwise parks the rank on it.
  bool wait_for_end(int rank, std::size_t m) {
    if (messages_[m].end != kUnknown) return true;
    park_[rank] = {Park::MessageEnd, m};
    return false;
  }

  // Decides the message's start once its sides have posted (the receiver too under rendezvous) and
  // the message before it on its channel has started; then the one after it may follow.
  void decide(std::size_t m) {
    while (m != kNone) {
      Message& msg = messages_[m];
      if (msg.start != kUnknown || msg.send_posted == kUnknown) return;
      if (options_.p2p == P2pMode::Rendezvous && msg.receive_posted == kUnknown) return;
      double start = msg.send_posted;
      if (options_.p2p == P2pMode::Rendezvous) start = std::max(start, msg.receive_posted);
      if (msg.before_on_channel != kNone && messages_[msg.before_on_channel].start == kUnknown) return;
      if (priced_) {
        const Result r = index_.result(m);
        const MessageCost& cost = (r.flow == Flow::Forward ? options_.forward_messages : options_.backward_messages)[r.stage];
        const double before = msg.before_on_channel != kNone ? messages_[msg.before_on_channel].end : 0;
        msg.start = std::max(start, before);
        msg.end = std::max(before, start + cost.latency) + cost.transfer;
      } else {
        if (msg.before_on_channel != kNone) start = std::max(start, messages_[msg.before_on_channel].start);
        msg.start = start;
        msg.end = start + options_.p2p_latency;
      }
      if (options_.record_spans) {
        const Result r = index_.result(m);
        spans_.push_back({r, sender_rank(schedule_, r), receiver_rank(schedule_, r), msg.start, msg.end});
      }
      wake(m);
      m = msg.after_on_channel;
    }
  }

  void wake(std::size_t m) {
    const Result r = index_.result(m);
    for (int rank : {sender_rank(schedule_, r), receiver_rank(schedule_, r)})
      if (park_[rank].what == Park::MessageEnd && park_[rank].index == m) {
        park_[rank] = {};
        make_runnable(rank);
      }
  }

  // What a parked rank waits for: the rank and the action it needs of it, and whether that rank has
  // the action left at all (a schedule that misses ops: else it never comes).
  struct Awaited {
    int rank;
    CommAction action;
    WaitKind what;
    bool never;
  };

  Awaited awaited(int rank) const {
    const Park& park = park_[rank];
    if (park.what == Park::Result) {
      const Result r = index_.result(park.index);
      return {rank, send_of(r), WaitKind::Compute, !computes_later(rank, r)};  // its own later op
    }
    std::size_t m = park.index;
    while (true) {
      const Message& msg = messages_[m];
      const Result r = index_.result(m);
      if (msg.send_posted == kUnknown) {
        const int sender = sender_rank(schedule_, r);
        return {sender, send_of(r), WaitKind::PeerSend, !posts_later(sender, send_of(r))};
      }
      if (msg.receive_posted == kUnknown && options_.p2p == P2pMode::Rendezvous) {
        const int receiver = receiver_rank(schedule_, r);
        const CommAction receive = receive_of(schedule_.layout, r);
        return {receiver, receive, WaitKind::PeerReceive, !posts_later(receiver, receive)};
      }
      if (msg.before_on_channel == kNone) throw std::logic_error("comm engine: a decidable message was left undecided");
      m = msg.before_on_channel;
    }
  }

  bool computes_later(int rank, const Result& r) const {
    const auto& program = schedule_.programs[rank];
    for (std::size_t k = op_[rank]; k < program.size(); ++k)
      for (int i = 0; i < program[k].size(); ++i) {
        const auto out = output_of(program[k][i]);
        if (out && index_(*out) == index_(r)) return true;
      }
    return false;
  }

  bool posts_later(int rank, const CommAction& action) const {
    const auto& comm = batches(rank);
    for (std::size_t b = batch_[rank]; b < comm.size(); ++b)
      if (std::find(comm[b].actions.begin(), comm[b].actions.end(), action) != comm[b].actions.end()) return true;
    return false;
  }

  CommDeadlock::Wait wait_of(int rank) const {
    const Awaited a = awaited(rank);
    const auto& comm = batches(rank);
    const bool in_batch = batch_[rank] < comm.size() && comm[batch_[rank]].before <= op_[rank];
    return {rank, in_batch, in_batch ? batch_[rank] : op_[rank], a.action, a.rank, a.what};
  }

  CommDeadlock deadlock() const {
    CommDeadlock result;
    std::map<int, WaitStep> steps;
    for (int r = 0; r < schedule_.ranks; ++r) {
      if (finished_[r]) continue;
      result.blocked.push_back(wait_of(r));
      const Awaited a = awaited(r);
      steps[r] = {a.rank, a.never};
    }
    const WaitChain chain = follow_waits(steps);
    result.open = chain.open;
    for (int r : chain.ranks) result.cycle.push_back(wait_of(r));
    return result;
  }

  CommTimingOptions options_;
  bool priced_;                     // messages take their own MessageCost
  std::vector<Message> messages_;   // by result; only the ones that cross ranks are used
  std::vector<std::size_t> batch_;  // next comm batch of each rank
  std::vector<bool> posted_;        // the rank's next batch is posted and being waited for
  std::vector<char> finished_;      // the rank ran its whole step
  std::vector<Park> park_;
  std::vector<std::vector<std::size_t>> late_sends_;  // per rank: its sends waited at the end of the step
  std::vector<std::size_t> end_wait_;                 // how many of them it has waited for
  std::vector<MessageSpan> spans_;  // with record_spans: each message as its flow is decided
};

}  // namespace

CommTiming time_lowered(const Schedule& schedule, const OpTimes& times, const CommTimingOptions& options) {
  if (!schedule.has_comms()) throw std::logic_error("time_lowered: the schedule has no comm actions (lower it first)");
  if (options.channels < 1) throw std::logic_error("time_lowered: at least one channel");
  const auto stages = static_cast<std::size_t>(schedule.num_stages());
  if (!options.forward_messages.empty() &&
      (options.forward_messages.size() != stages || options.backward_messages.size() != stages))
    throw std::logic_error("time_lowered: one message cost per virtual stage and direction");
  return Engine(schedule, times, options).run();
}

}  // namespace pipegrid
