#include "schedules/priced_step.h"

#include <algorithm>
#include <stdexcept>

namespace pipegrid {

PricedStep time_priced_step(const Schedule& lowered, const PricedJob& job, CommTimingOptions options) {
  const std::size_t d = job.replicas.size();
  const bool whole = job.check == PricedJob::Check::WholeJob;
  if (d == 0 || (job.check != PricedJob::Check::None && job.check_latency.size() != (whole ? 1 : d)))
    throw std::logic_error("time_priced_step: a replica at least, and one check latency per barrier");
  PricedStep step;
  options.record_spans = true;  // the gradient buckets launch part-way through the ops
  std::vector<std::vector<double>> arrivals(d);
  std::vector<std::vector<std::vector<double>>> streams(d);
  for (std::size_t r = 0; r < d; ++r) {
    const PricedReplica& replica = job.replicas[r];
    options.forward_messages = replica.forward_messages;
    options.backward_messages = replica.backward_messages;
    step.replicas.push_back(time_lowered(lowered, replica.ops, options));
    const CommTiming& timed = step.replicas.back();
    if (timed.deadlock) return step;
    streams[r].resize(static_cast<std::size_t>(lowered.ranks));
    for (int rank = 0; rank < lowered.ranks; ++rank)
      arrivals[r].push_back(gradients_reduced(lowered.programs[rank], replica.ops, timed.timing.spans[rank],
                                              timed.timing.ranks[rank].finish, replica.ranks[rank].reductions,
                                              streams[r][rank]));
  }
  std::vector<double> released(d);
  for (std::size_t r = 0; r < d; ++r) {
    if (job.check == PricedJob::Check::None) continue;
    if (whole) {
      std::vector<double> all;
      for (const auto& a : arrivals) all.insert(all.end(), a.begin(), a.end());
      released[r] = barrier_release(all, job.check_latency[0]);
    } else {
      released[r] = barrier_release(arrivals[r], job.check_latency[r]);
    }
  }
  for (std::size_t r = 0; r < d; ++r) {
    step.rank_ends.emplace_back();
    for (int rank = 0; rank < lowered.ranks; ++rank) {
      const double from = job.check == PricedJob::Check::None ? arrivals[r][rank] : released[r];
      step.rank_ends[r].push_back(step_end(from, job.replicas[r].ranks[rank], streams[r][rank]));
      step.step_time = std::max(step.step_time, step.rank_ends[r].back());
    }
  }
  return step;
}

}  // namespace pipegrid
