#include "schedules/dualpipe_trace.h"

#include <algorithm>
#include <array>
#include <deque>
#include <fmt/format.h>
#include <stdexcept>

#include "schedules/messages.h"

// Line numbers are deepseek-ai/DualPipe at 3da1bbe: dualpipe.py, with dualpipev.py's in brackets.
// The two classes differ only where this file says so (the second-half XOR, is_middle_rank against
// is_last_rank, the step counts and step 2's send of F0).

namespace pipegrid {

namespace {

class StepTracer {
 public:
  StepTracer(DualPipeVariant variant, const StageLayout& layout, int ranks, int rank)
      : layout_(layout),
        v_(variant == DualPipeVariant::DualPipeV),
        ranks_(ranks),
        rank_(rank),
        first_rank_(rank == 0),
        last_rank_(rank == ranks - 1),
        // dualpipe.py 44-45; DualPipeV has neither: no XOR, and is_last_rank takes the middle's role.
        second_half_(!v_ && rank >= ranks / 2),
        middle_(!v_ && (rank == ranks / 2 - 1 || rank == ranks / 2)),
        stage_{rank, 2 * ranks - 1 - rank},
        first_{layout.first_microbatch[stage_[0]], layout.first_microbatch[stage_[1]]} {}

  DualPipeStep run() &&;

 private:
  // `phase ^= self.is_in_second_half` (68, 91, 132, 147, 232, 242, 260, 273): step() writes logical
  // phases, 0 the direction the rank is nearer the start of; the real phase indexes self.module.
  int real(int phase) const { return phase ^ static_cast<int>(second_half_); }
  // The two predicates every helper tests (233, 243, 261, 274 [234, 242, 258, 269]).
  bool first_stage(int p) const { return (first_rank_ && p == 0) || (last_rank_ && p == 1); }
  bool last_stage(int p) const { return (first_rank_ && p == 1) || (last_rank_ && p == 0); }
  // The rank a helper addresses: next_rank for phase 0 and prev_rank for phase 1 downstream
  // (_send_forward, _recv_backward), the other way upstream (_recv_forward, _send_backward).
  int downstream(int p) const { return p == 0 ? rank_ + 1 : rank_ - 1; }
  int upstream(int p) const { return p == 0 ? rank_ - 1 : rank_ + 1; }

  // The layout's neighbour `other` of a stage DualPipe posts for must live on the rank DualPipe names;
  // where DualPipe skips the post, there is no neighbour or it is on this rank (DualPipeV's turn).
  int across(int other, int peer) const {
    if (other < 0 || layout_.rank_of_stage[other] != peer)
      throw std::logic_error(
          fmt::format("lower_dualpipe: rank {} posts to rank {}, the layout has no such transfer", rank_, peer));
    return other;
  }
  void local(int other) const {
    if (other >= 0 && layout_.rank_of_stage[other] != rank_)
      throw std::logic_error(fmt::format("lower_dualpipe: rank {} skips a transfer the layout has", rank_));
  }

  // The helpers only append to self.comm_ops (comm.py append_irecv / append_isend); counters are
  // current_{recv,send}_{f,b}_chunk_id, so the n-th post of a kind carries the phase's n-th micro-batch.
  void recv_forward(int phase) {  // _recv_forward, 231-239 [233-239]
    const int p = real(phase), s = stage_[p];
    if (first_stage(p)) return local(layout_.prev[s]);
    const int from = across(layout_.prev[s], upstream(p));
    pending_.push_back(receive_of(layout_, {from, first_[p] + recv_f_[p]++, Flow::Forward}));
  }
  void send_forward(int phase) {  // _send_forward, 241-254 [241-252]
    const int p = real(phase), s = stage_[p];
    if (last_stage(p)) return local(layout_.next[s]);
    across(layout_.next[s], downstream(p));
    pending_.push_back(send_of({s, first_[p] + send_f_[p]++, Flow::Forward}));
  }
  void recv_backward(int phase) {  // _recv_backward, 256-267 [254-263]
    const int p = real(phase), s = stage_[p];
    if (last_stage(p)) return local(layout_.next[s]);
    const int from = across(layout_.next[s], downstream(p));
    pending_.push_back(receive_of(layout_, {from, first_[p] + recv_b_[p]++, Flow::Backward}));
  }
  void send_backward(int phase) {  // _send_backward, 269-283 [265-277]
    const int p = real(phase), s = stage_[p];
    if (first_stage(p)) return local(layout_.prev[s]);
    across(layout_.prev[s], upstream(p));
    pending_.push_back(send_of({s, first_[p] + send_b_[p]++, Flow::Backward}));
  }
  // _commit_and_wait_comm, 285-292 [279-286]: nothing when nothing is pending, else one
  // batch_isend_irecv of all of it, every request waited.
  void commit() {
    if (pending_.empty()) return;
    out_.batches.push_back({out_.ops.size(), CommWait::Now, std::move(pending_)});
    pending_.clear();
  }

  // The computes, counted by current_f_chunk_id / current_b_chunk_id (67-119 [63-118]). A backward
  // with enable_zb leaves its weight gradient to WeightGradStore (flush, 114 [110]): our I, and a W
  // queued FIFO (utils.py WeightGradStore). DualPipeV's last rank hands its phase-0 output and its
  // phase-1 input gradient over in memory ([79-80, 115-116]), which is why local() skips are allowed.
  Action forward(int phase) {
    const int p = real(phase);
    return {stage_[p], first_[p] + f_[p]++, Kind::F};
  }
  Action backward(int phase, bool zb) {
    const int p = real(phase);
    const Action a{stage_[p], first_[p] + b_[p]++, zb ? Kind::I : Kind::B};
    if (zb) weights_.push_back({a.stage, a.microbatch, Kind::W});
    return a;
  }

  void forward_chunk(int phase, bool recv = true, bool send = true) {  // 185-193 [187-195]
    if (recv) recv_forward(phase);
    commit();
    out_.ops.emplace_back(forward(phase));
    if (send) send_forward(phase);
  }
  void backward_chunk(int phase, bool zb = false, bool recv = true, bool send = true) {  // 195-203 [197-205]
    if (recv) recv_backward(phase);
    commit();
    out_.ops.emplace_back(backward(phase, zb));
    if (send) send_backward(phase);
  }
  // 205-214 [207-216]; the pair's backward is never split (_forward_backward_compute_chunk, 121-183).
  void forward_backward_chunk(int phase0, int phase1, bool recv0 = true) {
    if (recv0) recv_forward(phase0);
    recv_backward(phase1);
    commit();
    const Action f = forward(phase0);
    out_.ops.emplace_back(f, backward(phase1, false));
    send_forward(phase0);
    send_backward(phase1);
  }
  void weight_chunk() {  // 216-223 [218-225]: commits even though a W reads nothing from a peer
    commit();
    if (weights_.empty()) throw std::logic_error("lower_dualpipe: WeightGradStore.pop on an empty queue");
    out_.ops.emplace_back(weights_.front());
    weights_.pop_front();
  }

  const StageLayout& layout_;
  bool v_;
  int ranks_, rank_;
  bool first_rank_, last_rank_, second_half_, middle_;
  std::array<int, 2> stage_;  // by real phase
  std::array<int, 2> first_;  // the phase's first micro-batch
  std::array<int, 2> f_{}, b_{}, recv_f_{}, send_f_{}, recv_b_{}, send_b_{};
  std::deque<Action> weights_;
  std::vector<CommAction> pending_;
  DualPipeStep out_;
};

DualPipeStep StepTracer::run() && {
  // 334-336: num_half_ranks, half_rank, half_num_chunks [rank, num_ranks, num_chunks as they are].
  const int H = v_ ? ranks_ : ranks_ / 2;
  const int h = v_ ? rank_ : std::min(rank_, ranks_ - 1 - rank_);
  const int n = layout_.end_microbatch[stage_[0]] - first_[0];
  // The rank whose first main-step F0 and B1 run apart: is_middle_rank [is_last_rank].
  const bool turn = v_ ? last_rank_ : middle_;

  // Step 1, nF0: 358-361 [330-333].
  for (int i = 0; i < 2 * (H - h - 1); ++i) forward_chunk(0);

  // Step 2, nF0F1: 363-371 [335-342]. The next F0's receive is appended before each F1 commits. A
  // middle rank sends each F0 at once; every other rank [every DualPipeV rank] holds it until F1 ran.
  // A turn rank holds its last F1's send for step 4.
  const int step_2 = h + 1;
  const bool f0_sent_at_once = !v_ && middle_;
  recv_forward(0);
  for (int i = 0; i < step_2; ++i) {
    forward_chunk(0, false, f0_sent_at_once);
    recv_forward(0);
    forward_chunk(1, true, !turn || i < step_2 - 1);
    if (!f0_sent_at_once) send_forward(0);
  }

  // Step 3, nB1W1F1: 373-379 [344-350]; F1's receive goes out with the W's commit.
  for (int i = 0; i < H - h - 1; ++i) {
    backward_chunk(1, true);
    recv_forward(1);
    weight_chunk();
    forward_chunk(1, false);
  }

  // Step 4, nF0B1F1B0: 381-396 [352-367]. On the turn rank the first F0 and B1 are not overlapped,
  // and their sends (with step 2's last F1) go out together before the next pair.
  for (int i = 0; i < n - 2 * H + h + 1; ++i) {
    if (i == 0 && turn) {
      forward_chunk(0, false, false);
      send_forward(1);
      backward_chunk(1, false, true, false);
      send_forward(0);
      send_backward(1);
    } else {
      forward_backward_chunk(0, 1, i > 0);
    }
    forward_backward_chunk(1, 0);
  }

  // Step 5, nB1F1B0: 398-402 [369-373].
  for (int i = 0; i < H - h - 1; ++i) {
    backward_chunk(1);
    forward_backward_chunk(1, 0);
  }

  // Step 6, nB1B0: 404-413 [375-384]; zero bubble from the middle iteration on, from its B1 when h
  // is odd, from its B0 when h is even.
  const int step_6 = h + 1;
  bool zb = false;
  for (int i = 0; i < step_6; ++i) {
    if (i == step_6 / 2 && h % 2 == 1) zb = true;
    backward_chunk(1, zb);
    if (i == step_6 / 2 && h % 2 == 0) zb = true;
    backward_chunk(0, zb);
  }

  // Step 7, nWB0: 415-419 [386-390].
  for (int i = 0; i < H - h - 1; ++i) {
    weight_chunk();
    backward_chunk(0, true);
  }

  // Step 8, nW: 421-425 [392-396], then the last commit of step(): 427 [398].
  for (int i = 0; i < h + 1; ++i) weight_chunk();
  if (!weights_.empty()) throw std::logic_error("lower_dualpipe: WeightGradStore not empty at the end of step()");
  commit();
  return std::move(out_);
}

}  // namespace

DualPipeStep trace_dualpipe_step(DualPipeVariant variant, const StageLayout& layout, int ranks, int rank) {
  return StepTracer(variant, layout, ranks, rank).run();
}

}  // namespace pipegrid
