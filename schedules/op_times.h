// What each compute op of a schedule takes, for the contention-free engines: one ActionTimes for
// every stage (the explicit times of `pipegrid schedule`), or a table per virtual stage priced from
// a model, with the tensor-parallel all-reduces each op ends with (the executor's analytic TP
// collectives: sim/exec/gpu_compute.cc runs them after the op's compute, back to back).
#pragma once

#include <optional>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/cp_op_cost.h"
#include "schedules/fsdp_op_cost.h"

namespace pipegrid {

/// One virtual stage's ops on one GPU, per micro-batch, in seconds: compute of F, I and W (B = I + W),
/// and the TP all-reduces an F and a B or I end with — `tp_forward` and `tp_backward` of
/// `tp_allreduce` seconds each — or with sequence parallelism their reduce-scatters and all-gathers.
struct StageOpTimes {
  double f = 0;
  double i = 0;
  double w = 0;
  int tp_forward = 0;
  int tp_backward = 0;
  double tp_allreduce = 0;
  // Sequence parallelism's halves of `tp_allreduce` seconds each (tp_op_cost.h), and with
  // --tp-comm-overlap the GEMM seconds of F and of I they run under.
  int tp_reduce_scatters_forward = 0, tp_reduce_scatters_backward = 0;
  int tp_all_gathers_forward = 0, tp_all_gathers_backward = 0;
  int tp_native_pairs = 0;  // of the backward's, the column GEMMs' async re-gathers and reduce-scatters
  bool tp_overlap = false;
  double tp_rs_slowdown = 1;
  double f_tp_gemm = 0, i_tp_gemm = 0, w_tp_gemm = 0;  // a B runs under I's and W's
  CpStageComm cp{};  // context parallelism's sends or all-to-alls (cp_op_cost.h)
  // ZeRO-3 (fsdp_op_cost.h): which ops gather the stage's units, and what their all-gathers add to
  // an F, a B and an I that does.
  FsdpGathers fsdp = FsdpGathers::None;
  int fsdp_first_forward = -1;
  double fsdp_f = 0, fsdp_b = 0, fsdp_i = 0;
};

class OpTimes {
 public:
  /// Every stage alike: exactly ActionTimes::of, so the explicit-times path keeps its numbers.
  OpTimes(const ActionTimes& uniform) : uniform_(uniform) {}  // NOLINT: implicit on purpose
  explicit OpTimes(std::vector<StageOpTimes> stages) : stages_(std::move(stages)) {}

  /// The op's compute, then its TP all-reduces. An overlapped pair computes both halves (a model
  /// prices no overlap gain: the executor's JobCosts::from_model saves nothing) and runs both halves'
  /// all-reduces at the first half's size, as the executor does (JobCosts::tp_allreduce_bytes).
  double of(const Op& op) const {
    return uniform_ ? uniform_->of(op) : compute_of(op) + tp_of(op) + cp_of(op) + fsdp_of(op);
  }
  /// The compute part alone: where a gradient bucket ready part-way through the op is launched.
  double compute_of(const Op& op) const;
  double tp_of(const Op& op) const;
  /// What context parallelism adds after the op's TP collectives (the executor's order too).
  double cp_of(const Op& op) const;
  /// What ZeRO-3's all-gathers of the op's stage add, after its compute, TP and CP communication (as
  /// the executor's analytic gathers: sim/exec/gpu_fsdp.cc).
  double fsdp_of(const Op& op) const;
  bool uniform() const { return uniform_.has_value(); }
  const ActionTimes& uniform_times() const { return *uniform_; }
  const std::vector<StageOpTimes>& stages() const { return stages_; }

 private:
  double compute_of(const Action& a) const;

  std::optional<ActionTimes> uniform_;
  std::vector<StageOpTimes> stages_;
};

}  // namespace pipegrid
