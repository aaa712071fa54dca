#include "schedules/messages.h"

namespace pipegrid {

std::optional<Result> message_of(const StageLayout& layout, const CommAction& a) {
  switch (a.kind) {
    case CommKind::SendF:
      if (layout.next[a.stage] < 0) return std::nullopt;
      return Result{a.stage, a.microbatch, Flow::Forward};
    case CommKind::SendB:
      if (layout.prev[a.stage] < 0) return std::nullopt;
      return Result{a.stage, a.microbatch, Flow::Backward};
    case CommKind::RecvF:
      if (layout.prev[a.stage] < 0) return std::nullopt;
      return Result{layout.prev[a.stage], a.microbatch, Flow::Forward};
    case CommKind::RecvB:
      if (layout.next[a.stage] < 0) return std::nullopt;
      return Result{layout.next[a.stage], a.microbatch, Flow::Backward};
  }
  return std::nullopt;
}

CommAction send_of(const Result& r) {
  return {r.stage, r.microbatch, r.flow == Flow::Forward ? CommKind::SendF : CommKind::SendB};
}

CommAction receive_of(const StageLayout& layout, const Result& r) {
  return {reader_stage(layout, r), r.microbatch, r.flow == Flow::Forward ? CommKind::RecvF : CommKind::RecvB};
}

}  // namespace pipegrid
