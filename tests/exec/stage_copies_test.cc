// DualPipe keeps two copies of every model stage, one per direction: each pair of ranks holding the
// same stages (r and p − 1 − r) sums their gradients as flows, in one ring with the stage's
// data-parallel replicas. On tests/data/platforms/star-4gpu.xml (2 ms, 1 GB/s between any two GPUs)
// with 1 GB of gradients per stage and no overlap with the backward, each pair all-reduces its two
// stages' 2 GB after the step over a ring of two: S / bw + 2 · latency = 2 s + 4 ms, on ports no
// other flow uses.
#include <gtest/gtest.h>

#include "exec_support.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::set_gradients;
using test_support::star_gpus;

TEST(StageCopies, DualPipePairsSumTheirGradients) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "dualpipe", {4, 8, 0}, {1, 4, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  set_gradients(input, 1e9);
  input.options.grad_overlap = false;
  const SimulationResult result = simulate(input);
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
  const double sum = 2e9 / 1e9 + 2 * 2e-3;
  // The later of each pair to arrive waits exactly the all-reduce; the earlier also waits for it.
  for (auto [a, b] : {std::pair{0, 3}, std::pair{1, 2}}) {
    const double first = result.gpus[a].account.dp_exposed, second = result.gpus[b].account.dp_exposed;
    EXPECT_NEAR(std::min(first, second), sum, 1e-9) << "ranks " << a << " and " << b;
    EXPECT_NEAR(result.gpus[a].account.finish, result.gpus[b].account.finish, 1e-9);
  }
}

// Overlapped, with two replicas: each copy of a model stage joins its ring when its own last backward
// is done, and both copies cut the bucketed stage (rank 0's first, whose other copy is on the last
// rank) into the same buckets — had one copy reduced it whole, the ring's members would never meet.
TEST(StageCopies, OverlappedCopiesCutTheirBucketsAlike) {
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "dualpipe", {4, 8, 0}, {1, 4, 2},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  set_gradients(input, 1e9);
  input.options.grad_bucket_bytes = 0.3e9;
  const SimulationResult result = simulate(input);
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
}

}  // namespace
}  // namespace pipegrid::sim
