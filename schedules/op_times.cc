#include "schedules/op_times.h"

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
  int count = 0;
  for (int k = 0; k < op.size(); ++k) {
    const StageOpTimes& s = stages_[op[k].stage];
    if (op[k].kind == Kind::F) count += s.tp_forward;
    if (op[k].kind == Kind::B || op[k].kind == Kind::I) count += s.tp_backward;
  }
  return count * stages_[op.first.stage].tp_allreduce;
}

}  // namespace pipegrid
