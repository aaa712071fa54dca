#include "schedules/timing.h"

#include <algorithm>

#include "schedules/results.h"

namespace pipegrid {

namespace {

constexpr std::size_t kNothing = static_cast<std::size_t>(-1);
constexpr double kNotDone = -1;

class Engine {
 public:
  Engine(const Schedule& schedule, const ActionTimes& times, const TimingOptions& options)
      : schedule_(schedule),
        times_(times),
        options_(options),
        index_(schedule.num_stages(), schedule.microbatches),
        done_(index_.size(), kNotDone),
        pc_(schedule.ranks, 0),
        free_at_(schedule.ranks, 0),
        waiting_for_(schedule.ranks, kNothing) {}

  Timing run() {
    Timing timing;
    timing.ranks.resize(schedule_.ranks);
    if (options_.record_spans) {
      timing.spans.resize(schedule_.ranks);
      for (int r = 0; r < schedule_.ranks; ++r) timing.spans[r].resize(schedule_.programs[r].size());
    }
    std::vector<int> runnable(schedule_.ranks);
    for (int r = 0; r < schedule_.ranks; ++r) runnable[r] = schedule_.ranks - 1 - r;
    while (!runnable.empty()) {
      const int rank = runnable.back();
      runnable.pop_back();
      const auto& program = schedule_.programs[rank];
      while (pc_[rank] < program.size() && try_start(rank, timing)) {
        ++pc_[rank];
        runnable.insert(runnable.end(), woken_.begin(), woken_.end());
        woken_.clear();
      }
    }
    finish(timing);
    return timing;
  }

 private:
  // Starts the rank's next op if its inputs are there; otherwise parks the rank on the missing one,
  // to be woken by whoever produces it.
  bool try_start(int rank, Timing& timing) {
    const Op& op = schedule_.programs[rank][pc_[rank]];
    double start = free_at_[rank];
    for (int i = 0; i < op.size(); ++i) {
      const auto input = input_of(schedule_.layout, op[i]);
      if (!input) continue;
      const std::size_t needed = index_(*input);
      double ready = done_[needed];
      if (ready == kNotDone) {
        waiting_for_[rank] = needed;
        return false;
      }
      if (schedule_.rank_of(input->stage) != rank) ready += options_.p2p_latency;
      start = std::max(start, ready);
    }
    const double duration = times_.of(op);
    const double end = start + duration;
    if (options_.record_spans) timing.spans[rank][pc_[rank]] = {start, end};
    if (pc_[rank] == 0) timing.ranks[rank].start = start;
    timing.ranks[rank].busy += duration;
    free_at_[rank] = end;
    for (int i = 0; i < op.size(); ++i)
      if (const auto output = output_of(op[i])) produce(*output, end);
    return true;
  }

  void produce(const Result& result, double end) {
    const std::size_t filled = index_(result);
    done_[filled] = end;
    // Whoever reads a result holds the next stage, the previous one or this one.
    const StageLayout& layout = schedule_.layout;
    for (int stage : {layout.next[result.stage], layout.prev[result.stage], result.stage}) {
      if (stage < 0) continue;
      const int reader = schedule_.rank_of(stage);
      if (waiting_for_[reader] == filled) {
        waiting_for_[reader] = kNothing;
        woken_.push_back(reader);
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
    for (std::size_t pos = pc_[owner]; pos < program.size(); ++pos)
      for (int i = 0; i < program[pos].size(); ++i)
        if (produces(program[pos][i])) return {program[pos][i], false};
    if (result.flow == Flow::Forward) return {Action{result.stage, result.microbatch, Kind::F}, true};
    Kind kind = Kind::B;
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i)
        if (op[i].stage == result.stage && op[i].kind == Kind::I) kind = Kind::I;
    return {Action{result.stage, result.microbatch, kind}, true};
  }

  void finish(Timing& timing) const {
    close_timing(timing, free_at_);
    timing.ops_run = pc_;

    Stall stall;
    for (int r = 0; r < schedule_.ranks; ++r) {
      if (pc_[r] == schedule_.programs[r].size()) continue;
      const Result awaited = index_.result(waiting_for_[r]);
      const auto [action, never_runs] = producer_of(awaited);
      stall.waits.push_back({r, pc_[r], action, schedule_.rank_of(awaited.stage), never_runs});
    }
    if (!stall.waits.empty()) timing.stall = std::move(stall);
  }

  const Schedule& schedule_;
  const ActionTimes& times_;
  TimingOptions options_;
  ResultIndex index_;
  std::vector<double> done_;  // when each result was produced; kNotDone until then
  std::vector<std::size_t> pc_;
  std::vector<double> free_at_;
  std::vector<std::size_t> waiting_for_;  // the result a parked rank waits for
  std::vector<int> woken_;
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
