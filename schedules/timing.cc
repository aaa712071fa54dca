#include "schedules/timing.h"

#include <algorithm>

#include "schedules/rank_engine.h"
#include "schedules/results.h"

namespace pipegrid {

namespace {

constexpr std::size_t kNothing = static_cast<std::size_t>(-1);

class Engine : public RankEngine<Engine> {
 public:
  Engine(const Schedule& schedule, const ActionTimes& times, const TimingOptions& options)
      : RankEngine(schedule, times, options.record_spans), options_(options), waiting_for_(schedule.ranks, kNothing) {}

  Timing run() {
    run_ranks();
    find_stall();
    return std::move(timing_);
  }

 private:
  friend class RankEngine<Engine>;

  bool step(int rank) { return op_[rank] < schedule_.programs[rank].size() && run_op(rank); }

  // An input is there once produced, a latency later on another rank; a rank that finds it missing
  // parks on it, to be woken by whoever produces it.
  std::optional<double> input_ready(int rank, const Result& input, std::size_t needed) {
    double ready = done_[needed];
    if (ready == kNotDone) {
      waiting_for_[rank] = needed;
      return std::nullopt;
    }
    if (schedule_.rank_of(input.stage) != rank) ready += options_.p2p_latency;
    return ready;
  }

  void produced(const Result& result, std::size_t filled) {
    // Whoever reads a result holds the next stage, the previous one or this one.
    const StageLayout& layout = schedule_.layout;
    for (int stage : {layout.next[result.stage], layout.prev[result.stage], result.stage}) {
      if (stage < 0) continue;
      const int reader = schedule_.rank_of(stage);
      if (waiting_for_[reader] == filled) {
        waiting_for_[reader] = kNothing;
        make_runnable(reader);
      }
    }
  }

  // The action that would fill a result, and whether its rank has it left to run: the F, or
  // whichever of B and I the stage's rank runs. A missing backward is named as the stage's others are.
  std::pair<Action, bool> producer_of(const Result& result) const {
    const int owner = schedule_.rank_of(result.stage);
    const auto& program = schedule_.programs[owner];
    const auto produces = [&](const Action& a) {
      return a.stage == result.stage && a.microbatch == result.microbatch &&
             (result.flow == Flow::Forward ? a.kind == Kind::F : a.kind == Kind::B || a.kind == Kind::I);
    };
    for (std::size_t pos = op_[owner]; pos < program.size(); ++pos)
      for (int i = 0; i < program[pos].size(); ++i)
        if (produces(program[pos][i])) return {program[pos][i], false};
    if (result.flow == Flow::Forward) return {Action{result.stage, result.microbatch, Kind::F}, true};
    Kind kind = Kind::B;
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i)
        if (op[i].stage == result.stage && op[i].kind == Kind::I) kind = Kind::I;
    return {Action{result.stage, result.microbatch, kind}, true};
  }

  void find_stall() {
    Stall stall;
    for (int r = 0; r < schedule_.ranks; ++r) {
      if (op_[r] == schedule_.programs[r].size()) continue;
      const Result awaited = index_.result(waiting_for_[r]);
      const auto [action, never_runs] = producer_of(awaited);
      stall.waits.push_back({r, op_[r], action, schedule_.rank_of(awaited.stage), never_runs});
    }
    if (!stall.waits.empty()) timing_.stall = std::move(stall);
  }

  TimingOptions options_;
  std::vector<std::size_t> waiting_for_;  // the result a parked rank waits for
};

}  // namespace

void close_timing(Timing& timing, const std::vector<double>& finish) {
  double busy_total = 0;
  for (std::size_t r = 0; r < timing.ranks.size(); ++r) {
    timing.ranks[r].finish = finish[r];
    timing.makespan = std::max(timing.makespan, finish[r]);
    busy_total += timing.ranks[r].busy;
  }
  for (auto& rank : timing.ranks) {
    rank.idle = timing.makespan - rank.busy;
    timing.longest_rank_span = std::max(timing.longest_rank_span, rank.finish - rank.start);
  }
  const double ranks = static_cast<double>(timing.ranks.size());
  timing.bubble_fraction = timing.makespan > 0 ? 1 - busy_total / (ranks * timing.makespan) : 0;
}

Timing time_schedule(const Schedule& schedule, const ActionTimes& times, const TimingOptions& options) {
  return Engine(schedule, times, options).run();
}

}  // namespace pipegrid
