// How long each compute action takes when the network is free: the contention-free engine's costs.
#pragma once

#include <optional>

#include "schedules/action.h"

namespace pipegrid {

/// Per-action times of one micro-batch on one virtual stage, in any unit (docs/design.md notation).
/// I = B − W; an overlapped (F;B) pair takes FB, by default F + B (no gain from overlapping), and an
/// (F;I) pair FB − W, the same pair without the weight part.
struct ActionTimes {
  double f = 1;
  double b = 2;
  double w = 1;
  std::optional<double> fb;

  double i() const { return b - w; }
  double pair() const { return fb.value_or(f + b); }
  double of(Kind kind) const {
    switch (kind) {
      case Kind::F: return f;
      case Kind::B: return b;
      case Kind::I: return i();
      case Kind::W: return w;
    }
    return 0;
  }
  double of(const Op& op) const {
    if (!op.is_pair()) return of(op.first.kind);
    const bool split = op.first.kind == Kind::I || op.second->kind == Kind::I;
    return split ? pair() - w : pair();
  }

  /// Throws InputError for a negative time, W > B, or FB < 0 (flag names as the command line has them).
  void validate() const;
};

}  // namespace pipegrid
