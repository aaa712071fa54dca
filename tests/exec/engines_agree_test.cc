// The two engines check each other: on an ideal network (FATPIPE ports of 1 PB/s, no latency) with
// explicit times, SimGrid's makespan equals the contention-free comm engine's to 1e-9 relative, both
// running the same comm actions (the schedule's framework plan) in the same p2p semantics.
#include <gtest/gtest.h>

#include <algorithm>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "schedules/comm_timing.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::star_gpus;

struct Case {
  std::string schedule;
  int pp, microbatches, chunks, dp, tp;
  P2pMode p2p = P2pMode::Async;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.schedule << " pp " << c.pp << " m " << c.microbatches << " v " << c.chunks << " dp " << c.dp << " tp " << c.tp
       << " " << p2p_mode_name(c.p2p);
}

class EnginesAgree : public ::testing::TestWithParam<Case> {};

TEST_P(EnginesAgree, OnAnIdealNetwork) {
  const Case& c = GetParam();
  // An overlapped F&B pair takes 3 instead of F + B = 3.75: pairs must cost the same in both engines.
  const ActionTimes times{1.25, 2.5, 1.0, 3.0};
  // Both run the schedule's framework plan: the same comm actions, in the same semantics.
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), c.schedule, {c.pp, c.microbatches, c.chunks},
                                       {c.tp, c.pp, c.dp}, times, /*p2p_bytes=*/1e3);
  input.options.p2p = c.p2p;
  const CommTiming engine = time_lowered(input.schedule, times, {0, c.p2p});
  ASSERT_FALSE(engine.deadlock);
  const double expected = engine.timing.makespan;
  const SimulationResult result = simulate(input);
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
  EXPECT_NEAR(result.makespan, expected, 1e-9 * expected);
  EXPECT_EQ(result.gpus.size(), static_cast<std::size_t>(c.pp * c.dp * c.tp));
  // Busy time is the engine's, GPU by GPU.
  const Timing& timing = engine.timing;
  for (const GpuReport& gpu : result.gpus)
    EXPECT_NEAR(gpu.account.busy, timing.ranks[gpu.coordinates.pp].busy, 1e-9 * expected);
}

INSTANTIATE_TEST_SUITE_P(Schedules, EnginesAgree,
                         ::testing::Values(Case{"gpipe", 4, 8, 0, 1, 1}, Case{"1f1b", 4, 8, 0, 1, 1},
                                           Case{"1f1b", 8, 16, 0, 2, 1}, Case{"1f1b", 3, 5, 0, 1, 1},
                                           Case{"interleaved", 4, 8, 2, 2, 1}, Case{"interleaved", 2, 6, 3, 1, 2},
                                           Case{"gpipe", 2, 3, 0, 4, 2}, Case{"zb-h1", 4, 8, 0, 2, 1},
                                           Case{"zb-h2", 4, 8, 0, 1, 2}, Case{"zbv", 4, 8, 0, 2, 1},
                                           Case{"dualpipe", 4, 8, 0, 2, 1}, Case{"dualpipe", 6, 12, 0, 1, 2},
                                           Case{"dualpipev", 4, 10, 0, 2, 1}, Case{"dualpipev", 3, 8, 0, 1, 1},
                                           Case{"gpipe", 4, 8, 0, 1, 1, P2pMode::Rendezvous},
                                           Case{"1f1b", 8, 16, 0, 2, 1, P2pMode::Rendezvous},
                                           Case{"interleaved", 4, 8, 2, 2, 1, P2pMode::Rendezvous},
                                           Case{"zb-h1", 4, 8, 0, 2, 1, P2pMode::Rendezvous},
                                           Case{"zb-h2", 4, 8, 0, 1, 2, P2pMode::Rendezvous},
                                           Case{"zbv", 4, 8, 0, 2, 1, P2pMode::Rendezvous},
                                           Case{"dualpipe", 4, 8, 0, 2, 1, P2pMode::Rendezvous},
                                           Case{"dualpipev", 4, 10, 0, 2, 1, P2pMode::Rendezvous}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string name = param_info.param.schedule;
                           std::replace(name.begin(), name.end(), '-', '_');  // gtest names: [A-Za-z0-9_]
                           return name + "_p" + std::to_string(param_info.param.pp) + "_m" +
                                  std::to_string(param_info.param.microbatches) + "_dp" + std::to_string(param_info.param.dp) +
                                  "_tp" + std::to_string(param_info.param.tp) + "_" + p2p_mode_name(param_info.param.p2p);
                         });

}  // namespace
}  // namespace pipegrid::sim
