// trace.csv's chunk and direction columns (stage_labels): by hand from each schedule's placement.
#include <gtest/gtest.h>

#include "schedules/generators.h"
#include "sim/output/trace_writer.h"

namespace pipegrid::sim {
namespace {

using namespace pipegrid::output;

TEST(TraceLabels, InterleavedStageSIsChunkSOverP) {
  // p = 2, v = 2: stages 0 1 2 3 on ranks 0 1 0 1 (loop placement).
  const StageLabels labels = stage_labels(generate_schedule("interleaved", {2, 4, 2}));
  EXPECT_EQ(labels.chunk, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(labels.direction, (std::vector<std::string>{"", "", "", ""}));
}

TEST(TraceLabels, AVsDownLegIsChunkZeroItsUpLegChunkOne) {
  // ZB-V, p = 2: rank 0 holds stages 0 and 3, rank 1 stages 1 and 2. No directions outside DualPipe.
  const StageLabels labels = stage_labels(generate_schedule("zbv", {2, 4, 2}));
  EXPECT_EQ(labels.chunk, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(labels.direction, (std::vector<std::string>{"", "", "", ""}));
}

TEST(TraceLabels, DualPipesTwoDirections) {
  // p = 4: stages 0-3 on ranks 0-3 carry the micro-batches entering at rank 0 (down), stages 4-7
  // on ranks 3-0 those entering at rank 3 (up): rank r holds stage r, then stage 7 − r.
  const StageLabels labels = stage_labels(generate_schedule("dualpipe", {4, 8, 2}));
  EXPECT_EQ(labels.chunk, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(labels.direction, (std::vector<std::string>{"down", "down", "down", "down", "up", "up", "up", "up"}));
}

TEST(TraceLabels, DualPipeVsLegsAreChunksOfOneDirection) {
  // Every micro-batch of DualPipeV enters at rank 0: the V's way back up is chunk 1, not a direction.
  const StageLabels labels = stage_labels(generate_schedule("dualpipev", {2, 4, 2}));
  EXPECT_EQ(labels.chunk, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(labels.direction, (std::vector<std::string>{"down", "down", "down", "down"}));
}

TEST(TraceLabels, OneChunkPerRank) {
  const StageLabels labels = stage_labels(generate_schedule("1f1b", {3, 3, 0}));
  EXPECT_EQ(labels.chunk, (std::vector<int>{0, 0, 0}));
}

}  // namespace
}  // namespace pipegrid::sim
