// The generators: their programs keep the rules, their warmups follow the published rules, and bad
// parameters get one line naming the rule.
#include <gtest/gtest.h>

#include <stdexcept>

#include <algorithm>
#include <string>

#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "common/input_error.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::error_of;

// Forwards a rank runs before its first backward: its warmup plus the first forward of the steady
// phase (or all of them when it never reaches one).
int forwards_before_first_backward(const std::vector<Op>& program) {
  const auto first_backward =
      std::find_if(program.begin(), program.end(), [](const Op& op) { return op.first.kind != Kind::F; });
  return static_cast<int>(first_backward - program.begin());
}

TEST(Generators, EveryScheduleIsValidAndDeadlockFree) {
  for (const auto& generator : schedule_generators()) {
    int generated = 0;
    for (int p : {1, 2, 3, 4, 8})
      for (int m : {1, 2, 3, 4, 5, 8, 12, 16, 24})
        for (int v : {0, 2, 3}) {
          if (generator.chunks_are_fixed && v != 0) continue;
          Schedule s;
          try {
            s = generate_schedule(generator.name, {p, m, v});
          } catch (const InputError&) {
            continue;  // parameters the schedule rules out, with a message (tested per schedule)
          }
          ++generated;
          SCOPED_TRACE(::testing::Message() << s.name << " p=" << p << " m=" << m << " v=" << s.chunks);
          std::size_t actions = 0;
          for (const auto& program : s.programs)
            for (const Op& op : program) actions += static_cast<std::size_t>(op.size());
          // Every stage runs each of its micro-batches forward once and backward once (B, or I and W).
          std::size_t expected = 0;
          for (int stage = 0; stage < s.num_stages(); ++stage)
            expected += 2 * static_cast<std::size_t>(s.layout.end_microbatch[stage] - s.layout.first_microbatch[stage]);
          EXPECT_GE(actions, expected);
          EXPECT_NO_THROW(validate(s));
          EXPECT_FALSE(find_deadlock(s).has_value());
        }
    EXPECT_GT(generated, 5) << generator.name;
  }
}

// The program up to its first backward, in to_string's words: the forwards a rank runs first.
std::string up_to_first_backward(const std::vector<Op>& program) {
  std::string text;
  for (const Op& op : program) {
    if (!text.empty()) text += ' ';
    text += to_string(op);
    if (op.first.kind != Kind::F) break;
  }
  return text;
}

// Megatron-LM's forward_backward_pipelining_without_interleaving (megatron/core/pipeline_parallel/
// schedules.py, at 2e2bdf62, as today): num_warmup_microbatches = p − rank − 1, then
// min(that, num_microbatches); the steady loop runs a forward, then a backward, so the forwards before
// the first backward are the warmup plus one, or all m when nothing is left for the steady phase.
// Worked out by hand for each row.
struct OneFOneBCase {
  int p, m, rank, warmup, forwards_first;
};
const OneFOneBCase kOneFOneB[] = {
    {1, 4, 0, 0, 1},                                                   // one rank: F, B, F, B …
    {4, 8, 0, 3, 4}, {4, 8, 1, 2, 3}, {4, 8, 2, 1, 2}, {4, 8, 3, 0, 1},  // p − r − 1, then one more
    {4, 2, 0, 2, 2}, {4, 2, 1, 2, 2}, {4, 2, 2, 1, 2}, {4, 2, 3, 0, 1},  // capped at m = 2
    {8, 3, 0, 3, 3}, {8, 3, 4, 3, 3}, {8, 3, 5, 2, 3}, {8, 3, 7, 0, 1},  // capped at m = 3
    {8, 32, 0, 7, 8}, {8, 32, 6, 1, 2},
};

TEST(Generators, OneFOneBWarmupIsMegatrons) {
  for (const OneFOneBCase& c : kOneFOneB) {
    SCOPED_TRACE(::testing::Message() << "p=" << c.p << " m=" << c.m << " rank " << c.rank);
    EXPECT_EQ(warmup_forwards_1f1b(c.p, c.rank, c.m), c.warmup);
    EXPECT_EQ(forwards_before_first_backward(generate_1f1b({c.p, c.m, 0}).programs[c.rank]), c.forwards_first);
  }
}

// Megatron-LM's forward_backward_pipelining_with_interleaving at 2e2bdf62 (the parent of 4295be1a,
// "tunable schedule with overlapping", Nov 2024, which made the group size a setting):
//   if num_microbatches == pipeline_parallel_size: num_warmup_microbatches = total (all forwards first)
//   else: (p − rank − 1)·2 + (num_model_chunks − 1)·p, then min(that, total), total = m·v.
// The steady loop again runs a forward before each backward. Worked out by hand for each row.
struct InterleavedCase {
  int p, m, v, rank, warmup, forwards_first;
};
const InterleavedCase kInterleaved[] = {
    {2, 4, 2, 0, 4, 5},    {2, 4, 2, 1, 2, 3},                                      // 2·1 + 2, 0 + 2
    {4, 8, 2, 0, 10, 11},  {4, 8, 2, 1, 8, 9},  {4, 8, 2, 2, 6, 7}, {4, 8, 2, 3, 4, 5},  // 6 + 4 … 0 + 4
    {3, 6, 3, 0, 10, 11},  {3, 6, 3, 1, 8, 9},  {3, 6, 3, 2, 6, 7},                  // 4 + 6 … 0 + 6
    {8, 16, 2, 0, 22, 23}, {8, 16, 2, 7, 8, 9},                                     // 14 + 8, 0 + 8
    // m == p: every rank runs all m·v = 8 forwards first, even rank 3 whose rule would give 0 + 4.
    {4, 4, 2, 0, 8, 8},    {4, 4, 2, 1, 8, 8},  {4, 4, 2, 2, 8, 8}, {4, 4, 2, 3, 8, 8},
    {3, 3, 4, 2, 12, 12},                                                             // 0 + 9 < 12: all 12
};

TEST(Generators, InterleavedWarmupIsMegatrons) {
  for (const InterleavedCase& c : kInterleaved) {
    SCOPED_TRACE(::testing::Message() << "p=" << c.p << " m=" << c.m << " v=" << c.v << " rank " << c.rank);
    EXPECT_EQ(warmup_forwards_interleaved(c.p, c.rank, c.m, c.v), c.warmup);
    EXPECT_EQ(forwards_before_first_backward(generate_interleaved({c.p, c.m, c.v}).programs[c.rank]),
              c.forwards_first);
  }
}

TEST(Generators, TheFirstForwardsAreMegatronsVirtualMicrobatches) {
  // Megatron's forward k runs chunk (k mod pv) / p of micro-batch (k / pv)·p + k mod p; its backward
  // k the chunks reversed. Rank r's chunk c is stage c·p + r. By hand, from the warmup counts above:
  // p = 4, v = 2, m = 8, rank 0: warmup k = 0…9 (chunk 0 of 0–3, chunk 1 of 0–3, chunk 0 of 4–5), then
  // forward 10 (chunk 0 of 6) and backward 0 (chunk 1 of 0).
  EXPECT_EQ(up_to_first_backward(generate_interleaved({4, 8, 2}).programs[0]),
            "0F0 0F1 0F2 0F3 4F0 4F1 4F2 4F3 0F4 0F5 0F6 4B0");
  // Rank 3: warmup k = 0…3, then forward 4 (chunk 1 of 0) and backward 0.
  EXPECT_EQ(up_to_first_backward(generate_interleaved({4, 8, 2}).programs[3]), "3F0 3F1 3F2 3F3 7F0 7B0");
  // m == p: all eight forwards, then backward 0 on the last chunk.
  EXPECT_EQ(up_to_first_backward(generate_interleaved({4, 4, 2}).programs[3]),
            "3F0 3F1 3F2 3F3 7F0 7F1 7F2 7F3 7B0");
  // 1F1B, p = 4, m = 8, rank 0: three warmup forwards, the steady phase's first forward, backward 0;
  // m = 2, rank 2: one warmup forward, then F1 and B0.
  EXPECT_EQ(up_to_first_backward(generate_1f1b({4, 8, 0}).programs[0]), "0F0 0F1 0F2 0F3 0B0");
  EXPECT_EQ(up_to_first_backward(generate_1f1b({4, 2, 0}).programs[2]), "2F0 2F1 2B0");
}

TEST(Generators, InterleavedRunsChunksInGroupsOfPMicrobatches) {
  // Megatron's order on p = 2, v = 2, m = 4, rank 0 (stages 0 and 2): warmup 2(2−0−1) + (2−1)·2 = 4
  // forwards: micro-batches 0, 1 on chunk 0, then 0, 1 on chunk 1; then 1F1B with backwards on the
  // last chunk first.
  const Schedule s = generate_interleaved({2, 4, 2});
  std::string program;
  for (const Op& op : s.programs[0]) program += to_string(op) + " ";
  EXPECT_EQ(program, "0F0 0F1 2F0 2F1 0F2 2B0 0F3 2B1 2F2 0B0 2F3 0B1 2B2 2B3 0B2 0B3 ");
}

TEST(Generators, SizesBelowOneAreTheCallersBugNotInput) {
  // The option schema refuses --pp 0 and its kind ("--pp 0: must be at least 1", cli_test.cc): a
  // caller past it with such sizes is a bug (exit 70), not bad input.
  EXPECT_THROW(generate_schedule("1f1b", {0, 8, 0}), std::invalid_argument);
  EXPECT_THROW(generate_schedule("gpipe", {4, -1, 0}), std::invalid_argument);
  EXPECT_THROW(generate_schedule("interleaved", {4, 8, -1}), std::invalid_argument);
}

TEST(Generators, BadParametersGetOneLineNamingTheRule) {
  EXPECT_EQ(error_of([] { generate_schedule("zigzag", {4, 8, 0}); }),
            "--schedule zigzag: unknown schedule; known: gpipe, 1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipe, dualpipev");
  EXPECT_EQ(error_of([] { generate_schedule("interleaved", {4, 10, 2}); }),
            "--microbatches 10: interleaved (Megatron's order) needs a multiple of --pp (4); 10 % 4 = 2");
  EXPECT_EQ(error_of([] { generate_schedule("interleaved", {4, 2, 2}); }),
            "--microbatches 2: interleaved needs at least --pp (4) micro-batches");
  EXPECT_EQ(error_of([] { generate_schedule("1f1b", {4, 8, 2}); }), "--chunks 2: 1f1b has 1 chunk(s) per rank");
}

}  // namespace
}  // namespace pipegrid
