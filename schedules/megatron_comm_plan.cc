// Megatron-LM's interleaved schedule lowered as it posts its p2p (megatron/core/pipeline_parallel/
// schedules.py forward_backward_pipelining_with_interleaving, batch_p2p_comm): one call per iteration,
// each a batch_isend_irecv in the order [send prev, recv prev, send next, recv next] (p2p_communication.
// _batched_p2p_ops) waited at once, and each call receives what the rank's next ops read. Which call
// carries what, and why the receives fall where they do: docs/schedules.md, "Megatron's comm plan".
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "common/input_error.h"
#include "schedules/framework_plans.h"
#include "schedules/generators.h"
#include "schedules/messages.h"

namespace pipegrid {

namespace {

struct Call {
  std::size_t before = 0;
  std::vector<CommAction> send_prev, receive_prev, send_next, receive_next;
};

// Checks that the rank runs Megatron's order: W forwards, then forward-backward pairs, then W
// backwards, on the loop placement.
void check_order(const Schedule& s, int rank, int warmup) {
  const auto& program = s.programs[rank];
  const std::size_t total = static_cast<std::size_t>(s.microbatches) * s.chunks;
  const auto refuse = [&](std::size_t pos) {
    return InputError(
        fmt::format("--comm-plan megatron: rank {}, position {} runs {}, which is not Megatron's "
                    "interleaved order (warmup {} forwards, then 1F1B, then the backwards)",
                    rank, pos + 1, pos < program.size() ? to_string(program[pos]) : "nothing", warmup));
  };
  if (program.size() != 2 * total) throw refuse(program.size());
  for (std::size_t pos = 0; pos < program.size(); ++pos) {
    const Op& op = program[pos];
    const std::size_t w = static_cast<std::size_t>(warmup);
    const bool forward = pos < w || (pos < 2 * total - w && (pos - w) % 2 == 0);
    if (op.is_pair() || (op.first.kind == Kind::F) != forward || (!forward && op.first.kind != Kind::B) ||
        s.rank_of(op.first.stage) != op.first.stage % s.ranks)
      throw refuse(pos);
  }
}

// The calls of one rank, indexed by call number + 1 (the first, number −1, is the initial
// recv_forward), with the sends each carries.
std::vector<Call> calls_of(const Schedule& s, int rank, int warmup) {
  const std::size_t total = static_cast<std::size_t>(s.microbatches) * s.chunks;
  const std::size_t w = static_cast<std::size_t>(warmup);
  std::vector<Call> calls(1);  // the initial call, before the first op
  const auto add_call = [&](std::size_t before, std::initializer_list<std::size_t> sent_by) {
    Call& call = calls.emplace_back();
    call.before = before;
    for (std::size_t pos : sent_by) {
      const Action& a = s.programs[rank][pos].first;
      const Result out = *output_of(a);
      const int reader = reader_stage(s.layout, out);
      if (reader < 0 || s.rank_of(reader) == rank) continue;
      (out.flow == Flow::Forward ? call.send_next : call.send_prev).push_back(send_of(out));
    }
  };
  for (std::size_t k = 0; k < w; ++k) add_call(k + 1, {k});
  if (w == total) add_call(w, {});  // recv_backward
  for (std::size_t k = 0; k < total - w; ++k) add_call(w + 2 * k + 2, {w + 2 * k, w + 2 * k + 1});
  for (std::size_t k = 0; k < w; ++k) add_call(2 * total - w + k + 1, {2 * total - w + k});
  return calls;
}

// The position of the op that reads each result, on whichever rank runs it (each result has one
// reader).
std::vector<std::size_t> reader_positions(const Schedule& s, const ResultIndex& index) {
  std::vector<std::size_t> position(index.size(), 0);
  for (const auto& program : s.programs)
    for (std::size_t pos = 0; pos < program.size(); ++pos)
      if (const auto in = input_of(s.layout, program[pos].first)) position[index(*in)] = pos;
  return position;
}

}  // namespace

void lower_megatron_interleaved(Schedule& s) {
  const int p = s.ranks;
  // With two ranks the previous and the next are one peer, and one batch would carry an activation and
  // a gradient the same way, which NCCL matches in posting order — swapping their buffers.
  if (p == 2)
    throw InputError(
        "--comm-plan megatron: interleaved on 2 ranks batches two messages the same way between them, "
        "whose buffers NCCL would swap; Megatron-LM refuses it without overlapped p2p (arguments.py: "
        "pipeline size must be > 2)");
  std::vector<std::vector<Call>> calls(p);
  for (int r = 0; r < p; ++r) {
    const int warmup = warmup_forwards_interleaved(p, r, s.microbatches, s.chunks);
    check_order(s, r, warmup);
    calls[r] = calls_of(s, r, warmup);
  }
  const ResultIndex index(s.num_stages(), s.microbatches);
  const std::vector<std::size_t> reader_at = reader_positions(s, index);
  for (int from = 0; from < p; ++from)
    for (const Call& sending : calls[from])
      for (const auto* sends : {&sending.send_next, &sending.send_prev})
        for (const CommAction& send : *sends) {
          const Result r = *message_of(s.layout, send);
          const int to = receiver_rank(s, r);
          // calls[to] is ordered by `before`; the last call at or before the reader (calls[0], before
          // 0, is at or before every op).
          const auto after = std::upper_bound(calls[to].begin(), calls[to].end(), reader_at[index(r)],
                                              [](std::size_t pos, const Call& call) { return pos < call.before; });
          Call& call = *std::prev(after);
          (r.flow == Flow::Forward ? call.receive_prev : call.receive_next).push_back(receive_of(s.layout, r));
        }
  for (int r = 0; r < p; ++r)
    for (const Call& call : calls[r]) {
      CommBatch batch{call.before, CommWait::Now, {}};
      for (const auto* part : {&call.send_prev, &call.receive_prev, &call.send_next, &call.receive_next})
        batch.actions.insert(batch.actions.end(), part->begin(), part->end());
      if (!batch.actions.empty()) s.comms[r].push_back(std::move(batch));
    }
}

}  // namespace pipegrid
