// Speed and memory of the schedule library on one (schedule, p, m): generation, the contention-free
// engine, and the checker's dependency graph. One case per process so that the peak resident memory
// (getrusage) belongs to that case. `make bench` runs the cases the schedule issue names.
//
//   bench_schedule_engine SCHEDULE P M [CHUNKS]
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/resource.h>

#include "schedules/deadlock.h"
#include "schedules/dependency_graph.h"
#include "schedules/generators.h"
#include "schedules/timing.h"

namespace {

template <typename F>
double milliseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    fmt::print(stderr, "usage: {} SCHEDULE P M [CHUNKS]\n", argv[0]);
    return 2;
  }
  const pipegrid::ScheduleParams params{std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? std::atoi(argv[4]) : 0};
  pipegrid::Schedule schedule;
  const double generate_ms = milliseconds([&] { schedule = pipegrid::generate_schedule(argv[1], params); });
  pipegrid::Timing timing;
  const double engine_ms = milliseconds([&] { timing = pipegrid::time_schedule(schedule, pipegrid::ActionTimes{}); });
  const long engine_rss = peak_rss_mb();
  bool acyclic = false;
  const double graph_ms = milliseconds([&] { acyclic = pipegrid::DependencyGraph(schedule).find_cycle().empty(); });
  fmt::print(
      "{} p={} m={} v={}: {} ops; generate {:.1f} ms, engine {:.1f} ms (makespan {}, peak RSS {} MB); "
      "Boost graph + cycle search {:.1f} ms ({}; peak RSS {} MB)\n",
      schedule.name, schedule.ranks, schedule.microbatches, schedule.chunks, schedule.num_ops(), generate_ms,
      engine_ms, timing.makespan, engine_rss, graph_ms, acyclic ? "acyclic" : "CYCLE", peak_rss_mb());
  return timing.stall || !acyclic ? 1 : 0;
}
