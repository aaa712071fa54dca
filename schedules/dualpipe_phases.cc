#include "schedules/dualpipe_phases.h"

#include <cassert>
#include <deque>

namespace pipegrid {

DualPipePhaseCounts DualPipePhaseCounts::of(int h, int H, int n) {
  return DualPipePhaseCounts{
      .forward0 = 2 * (H - h - 1),
      .forward0_forward1 = h + 1,
      .input1_weight1_forward1 = H - h - 1,
      .main = n - 2 * H + h + 1,
      .backward1_forward1_backward0 = H - h - 1,
      .backward1_backward0 = h + 1,
      .weight_input0 = H - h - 1,
      .weight = h + 1,
  };
}

namespace {

/// Appends a rank's actions, numbering micro-batches per chunk in order and keeping the split
/// backwards whose W has not run yet, oldest first (DeepSeek's WeightGradStore is a FIFO queue).
class ProgramBuilder {
 public:
  explicit ProgramBuilder(const DualPipeRank& rank) : rank_(rank) {}

  Action forward(int phase) {
    const DualPipeChunk& chunk = rank_.chunks[phase];
    return Action{chunk.stage, chunk.first_microbatch + forwards_[phase]++, Kind::F};
  }
  /// B, or I when zero bubble is on (`enable_zb`): its W is queued for a later `weight()`.
  Action backward(int phase, bool zero_bubble = false) {
    const DualPipeChunk& chunk = rank_.chunks[phase];
    const Action a{chunk.stage, chunk.first_microbatch + backwards_[phase]++, zero_bubble ? Kind::I : Kind::B};
    if (zero_bubble) pending_weights_.push_back(Action{a.stage, a.microbatch, Kind::W});
    return a;
  }

  void add(Op op) { program_.push_back(op); }
  void add_weight() {
    assert(!pending_weights_.empty());
    program_.emplace_back(pending_weights_.front());
    pending_weights_.pop_front();
  }

  std::vector<Op> finish() {
    assert(pending_weights_.empty());
    return std::move(program_);
  }

 private:
  const DualPipeRank& rank_;
  std::array<int, 2> forwards_{0, 0};
  std::array<int, 2> backwards_{0, 0};
  std::deque<Action> pending_weights_;
  std::vector<Op> program_;
};

}  // namespace

std::vector<Op> dualpipe_rank_program(const DualPipeRank& rank) {
  const DualPipePhaseCounts phases = DualPipePhaseCounts::of(rank.h, rank.H, rank.n);
  // The ranks at the turn (h = H − 1: DualPipe's two middle ranks, DualPipeV's last rank, at the
  // bottom of the V) run their first F0 and B1 apart, so the F0 runs while B1's gradient is still
  // on its way (dualpipe.py: "We don't overlap these two chunks to further reduce bubble size.").
  const bool at_turn = rank.h == rank.H - 1;
  ProgramBuilder out(rank);

  for (int i = 0; i < phases.forward0; ++i) out.add(out.forward(0));
  for (int i = 0; i < phases.forward0_forward1; ++i) {
    out.add(out.forward(0));
    out.add(out.forward(1));
  }
  // Zero bubble: the W right after its I fills the wait for the next chunk-1 forward.
  for (int i = 0; i < phases.input1_weight1_forward1; ++i) {
    out.add(out.backward(1, true));
    out.add_weight();
    out.add(out.forward(1));
  }
  for (int i = 0; i < phases.main; ++i) {
    if (i == 0 && at_turn) {
      out.add(out.forward(0));
      out.add(out.backward(1));
    } else {
      const Action f = out.forward(0);
      out.add(Op(f, out.backward(1)));
    }
    const Action f = out.forward(1);
    out.add(Op(f, out.backward(0)));
  }
  for (int i = 0; i < phases.backward1_forward1_backward0; ++i) {
    out.add(out.backward(1));
    const Action f = out.forward(1);
    out.add(Op(f, out.backward(0)));
  }
  // The second half of these backwards is split, so their W's can fill the cooldown; an odd h
  // starts splitting at chunk 1, an even h at chunk 0, so that h + 1 of the 2(h + 1) split.
  const int first_split = phases.backward1_backward0 / 2;
  for (int i = 0; i < phases.backward1_backward0; ++i) {
    out.add(out.backward(1, i > first_split || (i == first_split && rank.h % 2 == 1)));
    out.add(out.backward(0, i >= first_split));
  }
  for (int i = 0; i < phases.weight_input0; ++i) {
    out.add_weight();
    out.add(out.backward(0, true));
  }
  for (int i = 0; i < phases.weight; ++i) out.add_weight();
  return out.finish();
}

}  // namespace pipegrid
