// The skeleton both contention-free engines share (timing.cc, comm_timing.cc): ranks are taken in turn
// from a stack of runnable ones, lowest first, and each runs its program until it must wait; a waiting
// rank parks on what it waits for and is pushed back by whoever decides it. A compute op starts when
// its rank is free and its inputs are ready. The engines differ in what a rank runs next, when an input
// is ready and whom a result wakes, which a CRTP base leaves to them without a virtual call per op.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "schedules/op_times.h"
#include "schedules/results.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid {

/// Engine derives from RankEngine<Engine> and has:
///   bool step(int rank): runs the rank's next item; false once the rank parks or has finished.
///   std::optional<double> input_ready(int rank, const Result& input, std::size_t index): when the
///     input can be used on the rank; nullopt after parking the rank on it.
///   void produced(const Result& result, std::size_t index): the result was just filled; wakes its readers.
template <class Engine>
class RankEngine {
 protected:
  static constexpr double kNotDone = -1;

  RankEngine(const Schedule& schedule, OpTimes times, bool record_spans)
      : schedule_(schedule),
        times_(std::move(times)),
        record_spans_(record_spans),
        index_(schedule.num_stages(), schedule.microbatches),
        done_(index_.size(), kNotDone),
        op_(schedule.ranks, 0),
        now_(schedule.ranks, 0) {}

  /// Runs every rank until all have finished or are parked, then fills timing_'s totals and ops_run.
  void run_ranks() {
    timing_.ranks.resize(schedule_.ranks);
    if (record_spans_) {
      timing_.spans.resize(schedule_.ranks);
      for (int r = 0; r < schedule_.ranks; ++r) timing_.spans[r].resize(schedule_.programs[r].size());
    }
    for (int r = schedule_.ranks - 1; r >= 0; --r) runnable_.push_back(r);
    while (!runnable_.empty()) {
      const int rank = runnable_.back();
      runnable_.pop_back();
      while (engine().step(rank)) {
      }
    }
    close_timing(timing_, now_);
    timing_.ops_run = op_;
  }

  /// A parked rank's wait is over: it runs again.
  void make_runnable(int rank) { runnable_.push_back(rank); }

  /// Runs the rank's next compute op if every input is ready; false when the engine parked it on one.
  bool run_op(int rank) {
    const std::size_t k = op_[rank];
    const Op& op = schedule_.programs[rank][k];
    double start = now_[rank];
    for (int i = 0; i < op.size(); ++i) {
      const auto input = input_of(schedule_.layout, op[i]);
      if (!input) continue;
      const std::optional<double> ready = engine().input_ready(rank, *input, index_(*input));
      if (!ready) return false;
      start = std::max(start, *ready);
    }
    const double duration = times_.of(op);
    const double end = start + duration;
    if (record_spans_) timing_.spans[rank][k] = {start, end};
    if (k == 0) timing_.ranks[rank].start = start;
    timing_.ranks[rank].busy += duration;
    now_[rank] = end;
    ++op_[rank];
    for (int i = 0; i < op.size(); ++i)
      if (const auto output = output_of(op[i])) {
        const std::size_t filled = index_(*output);
        done_[filled] = end;
        engine().produced(*output, filled);
      }
    return true;
  }

  const Schedule& schedule_;
  const OpTimes times_;
  bool record_spans_;
  ResultIndex index_;
  std::vector<double> done_;     // when each result was computed; kNotDone until then
  std::vector<std::size_t> op_;  // each rank's next compute op
  std::vector<double> now_;      // when each rank is free
  Timing timing_;

 private:
  Engine& engine() { return static_cast<Engine&>(*this); }

  std::vector<int> runnable_;
};

}  // namespace pipegrid
