#include "schedules/op_times.h"

#include "schedules/tp_op_cost.h"

namespace pipegrid {

double OpTimes::compute_of(const Action& a) const {
  const StageOpTimes& s = stages_[a.stage];
  switch (a.kind) {
    case Kind::F: return s.f;
    case Kind::B: return s.i + s.w;
    case Kind::I: return s.i;
    case Kind::W: return s.w;
  }
  return 0;
}

double OpTimes::compute_of(const Op& op) const {
  if (uniform_) return uniform_->of(op);
  double seconds = 0;
  for (int k = 0; k < op.size(); ++k) seconds += compute_of(op[k]);
  return seconds;
}

double OpTimes::tp_of(const Op& op) const {
  if (uniform_) return 0;
  TpCollectives calls;
  double gemm = 0, dgrad = 0, wgrad = 0;
  for (int k = 0; k < op.size(); ++k) {
    const StageOpTimes& s = stages_[op[k].stage];
    if (op[k].kind == Kind::F) {
      calls.allreduces += s.tp_forward;
      calls.reduce_scatters += s.tp_reduce_scatters_forward;
      calls.all_gathers += s.tp_all_gathers_forward;
      gemm += s.f_tp_gemm;
    }
    if (op[k].kind == Kind::B || op[k].kind == Kind::I) {
      calls.allreduces += s.tp_backward;
      calls.reduce_scatters += s.tp_reduce_scatters_backward;
      calls.all_gathers += s.tp_all_gathers_backward;
      calls.native_gathers += s.tp_native_pairs;
      gemm += s.i_tp_gemm;
      dgrad += s.i_tp_gemm;
    }
    if (op[k].kind == Kind::B) {
      calls.native_scatters += s.tp_native_pairs;
      gemm += s.w_tp_gemm;
      wgrad += s.w_tp_gemm;
    }
  }
  const StageOpTimes& first = stages_[op.first.stage];
  const TpOpCost cost{calls, first.tp_allreduce, gemm, dgrad, wgrad};
  return first.tp_overlap ? cost.overlapped_extra(first.tp_rs_slowdown) : cost.serial();
}

double OpTimes::cp_of(const Op& op) const {
  if (uniform_) return 0;
  double seconds = 0;
  for (int k = 0; k < op.size(); ++k) {
    const CpStageComm& cp = stages_[op[k].stage].cp;
    if (op[k].kind == Kind::F) seconds += cp.forward_extra();
    if (op[k].kind == Kind::B || op[k].kind == Kind::I) seconds += cp.backward_extra();
  }
  return seconds;
}

double OpTimes::fsdp_of(const Op& op) const {
  if (uniform_) return 0;
  double seconds = 0;
  for (int k = 0; k < op.size(); ++k) {
    const StageOpTimes& s = stages_[op[k].stage];
    if (!fsdp_gathers(s.fsdp, op[k], s.fsdp_first_forward)) continue;
    seconds += op[k].kind == Kind::F ? s.fsdp_f : op[k].kind == Kind::B ? s.fsdp_b : s.fsdp_i;
  }
  return seconds;
}

}  // namespace pipegrid
