#include "schedules/comm_check.h"

#include <fmt/format.h>
#include <map>

#include "common/input_error.h"
#include "schedules/messages.h"

namespace pipegrid {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::string ordinal(std::size_t n) {
  const std::size_t tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return fmt::format("{}{}", n, suffix);
}

std::string_view what_of(Flow flow) { return flow == Flow::Forward ? "activation" : "input gradient"; }

// Where each compute action sits in its rank's program.
class Positions {
 public:
  explicit Positions(const Schedule& s)
      : index_(s.num_stages(), s.microbatches), produced_(index_.size(), kNone), read_(index_.size(), kNone) {
    for (int rank = 0; rank < s.ranks; ++rank)
      for (std::size_t pos = 0; pos < s.programs[rank].size(); ++pos) {
        const Op& op = s.programs[rank][pos];
        for (int i = 0; i < op.size(); ++i) {
          if (const auto out = output_of(op[i])) produced_[index_(*out)] = pos;
          const auto in = input_of(s.layout, op[i]);
          if (in && op[i].kind != Kind::W) read_[index_(*in)] = pos;
        }
      }
  }
  const ResultIndex& index() const { return index_; }
  std::size_t produced_at(const Result& r) const { return produced_[index_(r)]; }
  std::size_t read_at(const Result& r) const { return read_[index_(r)]; }

 private:
  ResultIndex index_;
  std::vector<std::size_t> produced_;  // position of the op that produces a result, on its rank
  std::vector<std::size_t> read_;      // position of the op on the reading rank that reads it
};

struct Seen {
  std::size_t batch = kNone;  // the batch that sends (or receives) it
};

void check_action(const Schedule& s, const CommLocator& where, int rank, std::size_t b, const CommAction& a) {
  const StageLayout& layout = s.layout;
  const std::string at = where(rank, b);
  if (a.stage >= layout.num_stages())
    throw InputError(fmt::format("{}: {} names stage {}, but the schedule has stages 0-{}", at, to_string(a), a.stage,
                                 layout.num_stages() - 1));
  if (!layout.has_microbatch(a.stage, a.microbatch))
    throw InputError(fmt::format("{}: {} names micro-batch {}, but stage {} runs micro-batches {}-{}", at, to_string(a),
                                 a.microbatch, a.stage, layout.first_microbatch[a.stage],
                                 layout.end_microbatch[a.stage] - 1));
  if (s.rank_of(a.stage) != rank)
    throw InputError(fmt::format("{}: {} runs on rank {}, but stage {} is on rank {}", at, to_string(a), rank, a.stage,
                                 s.rank_of(a.stage)));
  const auto message = message_of(layout, a);
  if (!message) {
    const bool forward = a.kind == CommKind::SendF || a.kind == CommKind::RecvF;
    throw InputError(fmt::format("{}: {}: stage {} is the {} stage of its chain, so there is nothing to {}", at,
                                 to_string(a), a.stage, (forward == is_send(a.kind)) ? "last" : "first",
                                 is_send(a.kind) ? "send" : "receive"));
  }
  const int peer = is_send(a.kind) ? receiver_rank(s, *message) : sender_rank(s, *message);
  if (peer == rank)
    throw InputError(fmt::format("{}: {}: stages {} and {} are both on rank {}, so no transfer joins them", at,
                                 to_string(a), message->stage, reader_stage(layout, *message), rank));
}

}  // namespace

std::string locate_comm_batch(int rank, std::size_t batch) {
  return fmt::format("rank {}, comm batch {}", rank, batch + 1);
}

void validate_comms(const Schedule& s, const OpLocator& locate_op, const CommLocator& where) {
  if (!s.has_comms()) return;
  if (static_cast<int>(s.comms.size()) != s.ranks)
    throw InputError(
        fmt::format("schedule {}: comm programs for {} ranks, but it has {}", s.name, s.comms.size(), s.ranks));
  const Positions positions(s);
  const ResultIndex& index = positions.index();
  std::vector<Seen> sent(index.size()), received(index.size());
  // The messages from one rank to another in the sender's posting order and the receiver's.
  std::map<std::pair<int, int>, std::vector<std::pair<Result, std::size_t>>> sends, receives;

  for (int rank = 0; rank < s.ranks; ++rank) {
    const auto& batches = s.comms[rank];
    const std::size_t ops = s.programs[rank].size();
    for (std::size_t b = 0; b < batches.size(); ++b) {
      const CommBatch& batch = batches[b];
      if (batch.before > ops || (b > 0 && batch.before < batches[b - 1].before))
        throw InputError(fmt::format("{}: comm batch {} of rank {} is placed before position {}, out of order",
                                     where(rank, b), b + 1, rank, batch.before + 1));
      if (batch.actions.empty()) throw InputError(fmt::format("{}: an empty comm batch", where(rank, b)));
      for (const CommAction& a : batch.actions) {
        check_action(s, where, rank, b, a);
        const Result message = *message_of(s.layout, a);
        const bool sending = is_send(a.kind);
        Seen& seen = (sending ? sent : received)[index(message)];
        if (seen.batch != kNone)
          throw InputError(fmt::format("{}: {} {} micro-batch {}'s {} of stage {} a second time (first at {})",
                                       where(rank, b), to_string(a), sending ? "sends" : "receives", message.microbatch,
                                       what_of(message.flow), message.stage, where(rank, seen.batch)));
        seen.batch = b;
        if (sending) {
          const std::size_t produced = positions.produced_at(message);
          if (produced == kNone)
            throw InputError(fmt::format(
                "{}: {} sends micro-batch {}'s {} of stage {}, which no op of rank {} computes", where(rank, b),
                to_string(a), message.microbatch, what_of(message.flow), message.stage, rank));
          if (produced >= batch.before)
            throw InputError(fmt::format(
                "{}: {} sends micro-batch {}'s {} of stage {} before the op that computes it ({})", where(rank, b),
                to_string(a), message.microbatch, what_of(message.flow), message.stage, locate_op(rank, produced)));
          sends[{rank, receiver_rank(s, message)}].emplace_back(message, b);
        } else {
          const std::size_t read = positions.read_at(message);
          if (read < batch.before)
            throw InputError(fmt::format("{}: {} receives micro-batch {}'s {} after the op that reads it ({})",
                                         where(rank, b), to_string(a), message.microbatch, what_of(message.flow),
                                         locate_op(rank, read)));
          receives[{sender_rank(s, message), rank}].emplace_back(message, b);
        }
      }
    }
  }

  // Every result read on another rank travels: sent by its producer's rank, received by its reader's.
  for (int rank = 0; rank < s.ranks; ++rank)
    for (std::size_t pos = 0; pos < s.programs[rank].size(); ++pos) {
      const Op& op = s.programs[rank][pos];
      for (int i = 0; i < op.size(); ++i) {
        const auto in = input_of(s.layout, op[i]);
        if (in && s.rank_of(in->stage) != rank && received[index(*in)].batch == kNone)
          throw InputError(fmt::format("{}: {} reads micro-batch {}'s {} from rank {}, but no {} comes before it",
                                       locate_op(rank, pos), to_string(op[i]), in->microbatch, what_of(in->flow),
                                       s.rank_of(in->stage), to_string(receive_of(s.layout, *in))));
        const auto out = output_of(op[i]);
        if (!out) continue;
        const int reader = reader_stage(s.layout, *out);
        if (reader >= 0 && s.rank_of(reader) != rank && positions.read_at(*out) != kNone &&
            sent[index(*out)].batch == kNone)
          throw InputError(fmt::format("{}: {}'s {} is read on rank {}, but no {} follows it", locate_op(rank, pos),
                                       to_string(op[i]), what_of(out->flow), s.rank_of(reader),
                                       to_string(send_of(*out))));
      }
    }

  // Only messages with both sides take part: a receive whose sender skipped the op (a schedule that
  // misses ops) is a hang the comm engine reports, not a crossing.
  const auto both_sides = [&](std::vector<std::pair<Result, std::size_t>> order) {
    std::erase_if(order, [&](const auto& message) {
      return sent[index(message.first)].batch == kNone || received[index(message.first)].batch == kNone;
    });
    return order;
  };
  for (auto& [pair, all_sent] : sends) {
    const auto sent_order = both_sides(all_sent);
    const auto received_order = both_sides(receives[pair]);
    for (std::size_t k = 0; k < sent_order.size() && k < received_order.size(); ++k) {
      const auto& [out, send_batch] = sent_order[k];
      const auto& [in, receive_batch] = received_order[k];
      if (index(out) == index(in)) continue;
      throw InputError(fmt::format(
          "{}: {} is the {} receive of rank {} from rank {}, but the {} send of rank {} to it is {} ({}): NCCL "
          "matches the messages between two ranks in the order they are posted",
          where(pair.second, receive_batch), to_string(receive_of(s.layout, in)), ordinal(k + 1), pair.second,
          pair.first, ordinal(k + 1), pair.first, to_string(send_of(out)), where(pair.first, send_batch)));
    }
  }
}

}  // namespace pipegrid
