// The event-driven engine against the dependency graph's longest path (Boost's topological order):
// two algorithms, one makespan.
#include <gtest/gtest.h>

#include "schedules/dependency_graph.h"
#include "schedules/generators.h"
#include "common/input_error.h"
#include "schedules/results.h"
#include "schedules/timing.h"

namespace pipegrid {
namespace {

TEST(EnginesAgree, MakespanEqualsTheCriticalPath) {
  const ActionTimes times{1.25, 2.5, 1.0, std::nullopt};
  for (const auto& g : schedule_generators())
    for (int p : {1, 2, 4, 5})
      for (int m : {4, 8, 20})
        for (double latency : {0.0, 0.125, 3.0}) {
          Schedule s;
          try {
            s = generate_schedule(g.name, {p, m, 0});
          } catch (const InputError&) {
            continue;  // parameters this schedule rules out
          }
          const Timing t = time_schedule(s, times, {latency, false});
          EXPECT_EQ(t.makespan, DependencyGraph(s).critical_path_length(times, latency))
              << g.name << " p=" << p << " m=" << m << " latency " << latency;
        }
}

TEST(EnginesAgree, EveryOpStartsAfterItsRankAndItsInputsAreFree) {
  const double latency = 0.5;
  const ActionTimes times{1, 3, 1, std::nullopt};
  const Schedule s = generate_interleaved({4, 8, 3});
  const Timing t = time_schedule(s, times, {latency, true});
  const ResultIndex index(s.num_stages(), s.microbatches);
  std::vector<double> produced(index.size(), -1);
  std::vector<int> producer_rank(index.size(), -1);
  for (int r = 0; r < s.ranks; ++r)
    for (std::size_t i = 0; i < s.programs[r].size(); ++i)
      if (auto out = output_of(s.programs[r][i].first)) {
        produced[index(*out)] = t.spans[r][i].end;
        producer_rank[index(*out)] = r;
      }
  for (int r = 0; r < s.ranks; ++r)
    for (std::size_t i = 0; i < s.programs[r].size(); ++i) {
      const OpSpan& span = t.spans[r][i];
      EXPECT_EQ(span.end - span.start, times.of(s.programs[r][i]));
      if (i > 0) {
        EXPECT_GE(span.start, t.spans[r][i - 1].end);
      }
      if (auto in = input_of(s.layout, s.programs[r][i].first)) {
        const double ready = produced[index(*in)] + (producer_rank[index(*in)] != r ? latency : 0);
        EXPECT_GE(span.start, ready) << to_string(s.programs[r][i]);
      }
    }
}

}  // namespace
}  // namespace pipegrid
