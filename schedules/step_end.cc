#include "schedules/step_end.h"

#include <algorithm>
#include <stdexcept>

namespace pipegrid {

namespace {

// CommStream::launch_timed: a collective starts when launched and its stream is free.
double launch(std::vector<double>& stream_free, const StepCollective& c, double now) {
  if (stream_free.size() <= c.stream) stream_free.resize(c.stream + 1, 0);
  double& free = stream_free[c.stream];
  free = std::max(free, now) + c.seconds;
  return free;
}

double drained(const std::vector<double>& stream_free, double now) {
  for (double free : stream_free) now = std::max(now, free);
  return now;
}

}  // namespace

double gradients_reduced(const std::vector<Op>& program, const OpTimes& times, const std::vector<OpSpan>& spans,
                         double finish, const std::vector<StepCollective>& reductions, std::vector<double>& stream_free) {
  if (spans.size() != program.size()) throw std::logic_error("gradients_reduced: the program's spans were not recorded");
  std::size_t next = 0;
  // Those ready during the program: a bucket at its fraction of the op's compute, the rest at its end
  // (GpuRun::execute, launch_ready).
  for (; next < reductions.size() && reductions[next].position < program.size(); ++next) {
    const StepCollective& c = reductions[next];
    const double compute = times.compute_of(program[c.position]);
    const double at = c.fraction < 1 && compute > 0 ? spans[c.position].start + c.fraction * compute
                                                    : spans[c.position].end;
    launch(stream_free, c, at);
  }
  // The step's end (GpuRun::finish_gradients): what may go at once, the wait for every stream, then the rest.
  for (; next < reductions.size() && !reductions[next].after_grad_sync; ++next) launch(stream_free, reductions[next], finish);
  double now = drained(stream_free, finish);
  for (; next < reductions.size(); ++next) launch(stream_free, reductions[next], now);
  return drained(stream_free, now);
}

double step_end(double released, const RankStepEnd& rank, std::vector<double>& stream_free) {
  const double updated = released + rank.optimizer;
  for (const StepCollective& gather : rank.gathers) launch(stream_free, gather, updated);
  return drained(stream_free, updated);
}

double barrier_release(const std::vector<double>& arrivals, double latency) {
  return *std::max_element(arrivals.begin(), arrivals.end()) + latency;
}

}  // namespace pipegrid
