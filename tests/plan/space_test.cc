// The planner's enumeration against hand counts: how many layouts a small job has, and under which
// rule each of the others is excluded; every rule broken on purpose.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/plan/space.h"

namespace pipegrid::plan {
namespace {

// 32 layers, 16 heads of 64, an MLP of 4h, 2048 tokens: every power of two up to 8 divides the heads.
Job small_job() {
  Job job;
  job.model.name = "small";
  job.model.layers = 32;
  job.model.hidden = 1024;
  job.model.heads = 16;
  job.model.seq = 2048;
  job.model.vocab = 51200;
  job.gpus = 16;
  job.gpus_per_node = 8;
  job.global_batch = 64;
  return job;
}

TEST(PlanSpace, SixteenGpusThirtyTwoLayersGlobalBatch64ByHand) {
  // tp ∈ {1, 2, 4, 8} (the node's powers of two), pp ∈ the 5 divisors of 16, micro-batch ∈ {1, 2},
  // 1f1b or interleaved, chunks 0 or 2: 4 · 5 · 2 · 2 · 2 = 160 combinations.
  Space space;
  space.values["micro-batch"] = {"1", "2"};
  space.values["schedule"] = {"1f1b", "interleaved"};
  space.values["chunks"] = {"0", "2"};
  space.values["recompute"] = {"none"};
  const Enumeration e = enumerate(small_job(), space);
  EXPECT_EQ(e.combinations, 160u);
  // tp·pp must divide 16: of the 20 pairs, tp 2 with pp 16, tp 4 with 8 and 16, tp 8 with 4, 8 and 16
  // do not — 6 pairs, each with 2 · 2 · 2 = 8 combinations.
  EXPECT_EQ(e.excluded.at("tp·pp·cp: must divide the GPUs"), 48u);
  // Of the 14 pairs left, 1f1b with chunks 2 and interleaved with chunks 0: 14 · 2 · 2 = 56.
  EXPECT_EQ(e.excluded.at("chunks: 2 or more for interleaved, the schedule's own (0) else"), 56u);
  // Interleaved on one stage (pp 1: tp 1, 2, 4, 8) with either micro-batch: 8.
  EXPECT_EQ(e.excluded.at("pp 1: one schedule (1f1b), the others run the same ops"), 8u);
  EXPECT_EQ(e.excluded.size(), 3u);
  // The rest: 14 · 2 one-schedule layouts and 10 · 2 interleaved ones = 48, every dp · micro-batch
  // dividing 64 and every interleaved m a multiple of its p (m = 64 / (dp · micro-batch)).
  EXPECT_EQ(e.candidates.size(), 48u);
  for (const Layout& l : e.candidates) {
    EXPECT_EQ(l.number("tp") * l.number("pp") * l.number("dp"), 16) << l.text();
    EXPECT_EQ(l.number("dp") * l.number("micro-batch") * l.number("microbatches"), 64) << l.text();
    EXPECT_EQ(l["sequence-parallel"], l.number("tp") > 1 ? "on" : "off") << l.text();
  }
}

TEST(PlanSpace, DefaultChunksAreTheDivisorsOfARanksLayers) {
  // 32 layers on pp ∈ {2, 4, 8, 16} (tp 1, so dp = 16 / pp): 16, 8, 4 and 2 layers a rank, whose
  // divisors from 2 are {2, 4, 8, 16}, {2, 4, 8}, {2, 4} and {2}: Megatron's v for each pp.
  Space space;
  space.values["tp"] = {"1"};
  space.values["pp"] = {"2", "4", "8", "16"};
  space.values["micro-batch"] = {"1"};
  space.values["schedule"] = {"interleaved"};
  space.values["recompute"] = {"none"};
  const Enumeration e = enumerate(small_job(), space);
  std::map<int, std::vector<int>> chunks;
  for (const Layout& l : e.candidates) chunks[l.number("pp")].push_back(l.number("chunks"));
  const std::map<int, std::vector<int>> by_hand = {{2, {2, 4, 8, 16}}, {4, {2, 4, 8}}, {8, {2, 4}}, {16, {2}}};
  EXPECT_EQ(chunks, by_hand);
  // Each pp also tried chunks 0, which interleaving refuses; pp 16 with 2 makes 32 stages, as many as layers.
  EXPECT_EQ(e.excluded.at("chunks: 2 or more for interleaved, the schedule's own (0) else"), 4u);
  EXPECT_EQ(e.combinations, 4u + 10u);
}

// The rule a one-layout space breaks.
std::string rule_of(Job job, std::map<std::string, std::string> axes) {
  Space space;
  for (const auto& [axis, value] : axes) space.values[axis] = {value};
  const std::map<std::string, std::string> one = {{"tp", "1"}, {"pp", "1"}, {"cp", "1"}, {"ep", "1"},
                                                  {"micro-batch", "1"}, {"schedule", "1f1b"}, {"chunks", "0"},
                                                  {"recompute", "none"}};
  for (const auto& [axis, value] : one)
    if (!space.values.count(axis)) space.values[axis] = {value};
  const Enumeration e = enumerate(job, space);
  EXPECT_EQ(e.combinations, 1u);
  return e.excluded.empty() ? "" : e.excluded.begin()->first;
}

TEST(PlanSpace, EachRuleExcludesWhatBreaksIt) {
  const Job job = small_job();
  EXPECT_EQ(rule_of(job, {{"tp", "1"}}), "");
  EXPECT_EQ(rule_of(job, {{"tp", "3"}}), "tp: must divide the heads, key-value heads and MLP width");
  Job wide = job;
  wide.gpus = 32;
  wide.model.heads = 32;
  wide.model.hidden = 2048;
  EXPECT_EQ(rule_of(wide, {{"tp", "16"}}), "tp: within a node");
  EXPECT_EQ(rule_of(job, {{"pp", "3"}}), "tp·pp·cp: must divide the GPUs");
  EXPECT_EQ(rule_of(job, {{"pp", "2"}, {"schedule", "interleaved"}}),
            "chunks: 2 or more for interleaved, the schedule's own (0) else");
  EXPECT_EQ(rule_of(job, {{"schedule", "gpipe"}}), "pp 1: one schedule (1f1b), the others run the same ops");
  EXPECT_EQ(rule_of(job, {{"pp", "16"}, {"schedule", "interleaved"}, {"chunks", "4"}}), "pp: more stages than layers");
  EXPECT_EQ(rule_of(job, {{"pp", "8"}, {"schedule", "interleaved"}, {"chunks", "3"}, {"layer-split", "even"}}),
            "layer-split even: the stages must divide the layers");
  EXPECT_EQ(rule_of(job, {{"micro-batch", "8"}}), "global batch: dp × micro-batch must divide it");  // 16 · 8 > 64
  EXPECT_EQ(rule_of(job, {{"pp", "2"}, {"schedule", "dualpipe"}, {"micro-batch", "8"}}), "schedule: refuses (p, m)");
  Job long_seq = job;
  long_seq.model.seq = 2050;
  EXPECT_EQ(rule_of(long_seq, {{"cp", "2"}}), "cp: 2·cp must divide the sequence");
  EXPECT_EQ(rule_of(job, {{"sequence-parallel", "on"}}), "sequence-parallel: needs tp > 1");
  EXPECT_EQ(rule_of(job, {{"tp", "2"}, {"tp-comm-overlap", "on"}, {"sequence-parallel", "off"}}),
            "tp-comm-overlap: needs sequence parallelism");
  EXPECT_EQ(rule_of(job, {{"ep", "2"}}), "ep: the model has no experts");
  Job moe = job;
  moe.model.moe.experts = 6;
  moe.model.moe.top_k = 2;
  moe.model.moe.expert_hidden = 512;
  EXPECT_EQ(rule_of(moe, {{"ep", "4"}}), "ep: must divide the experts");
  EXPECT_EQ(rule_of(moe, {{"tp", "2"}, {"sequence-parallel", "off"}}), "sequence-parallel: MoE with tp > 1 needs it");
}

}  // namespace
}  // namespace pipegrid::plan
