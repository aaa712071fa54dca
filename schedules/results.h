// The data dependencies between actions, stated once: every engine, the checker and the SimGrid
// executor derive who waits for whom (and so every transfer) from these two functions.
#pragma once

#include <cstdint>
#include <optional>

#include "schedules/schedule.h"

namespace pipegrid {

/// A result one action hands to another: the forward output (activation) or the backward output
/// (gradient of the stage's input) of one micro-batch at one stage.
enum class Flow : std::uint8_t { Forward = 0, Backward = 1 };

struct Result {
  int stage;
  int microbatch;
  Flow flow;
};

/// The result an action must have before it starts, if any:
///  F(s, mb) reads F(prev(s), mb); B or I (s, mb) reads the backward of (next(s), mb), or at the last
///  stage its own forward F(s, mb); W(s, mb) reads its I(s, mb).
inline std::optional<Result> input_of(const StageLayout& layout, const Action& a) {
  switch (a.kind) {
    case Kind::F:
      if (layout.prev[a.stage] < 0) return std::nullopt;
      return Result{layout.prev[a.stage], a.microbatch, Flow::Forward};
    case Kind::B:
    case Kind::I:
      if (layout.next[a.stage] < 0) return Result{a.stage, a.microbatch, Flow::Forward};
      return Result{layout.next[a.stage], a.microbatch, Flow::Backward};
    case Kind::W: return Result{a.stage, a.microbatch, Flow::Backward};
  }
  return std::nullopt;
}

/// The result an action produces: F the forward one, B or I the backward one, W none.
inline std::optional<Result> output_of(const Action& a) {
  if (a.kind == Kind::W) return std::nullopt;
  return Result{a.stage, a.microbatch, a.kind == Kind::F ? Flow::Forward : Flow::Backward};
}

/// The stage other than its own that reads a result — the next stage for a forward, the previous one
/// for a backward — or -1 (the last stage's forward is read by its own backward, a backward's W by
/// its own stage). A transfer exists exactly when this stage lives on another rank.
inline int reader_stage(const StageLayout& layout, const Result& r) {
  return r.flow == Flow::Forward ? layout.next[r.stage] : layout.prev[r.stage];
}

/// Numbers the results of a schedule densely, for tables indexed by result.
class ResultIndex {
 public:
  ResultIndex(int stages, int microbatches) : stages_(stages), microbatches_(microbatches) {}
  std::size_t size() const { return 2 * static_cast<std::size_t>(stages_) * microbatches_; }
  std::size_t operator()(const Result& r) const {
    return (static_cast<std::size_t>(r.stage) * microbatches_ + r.microbatch) * 2 + static_cast<std::size_t>(r.flow);
  }
  Result result(std::size_t index) const {
    const auto flow = static_cast<Flow>(index % 2);
    index /= 2;
    return Result{static_cast<int>(index / microbatches_), static_cast<int>(index % microbatches_), flow};
  }

 private:
  int stages_;
  int microbatches_;
};

}  // namespace pipegrid
