// The generators: their programs keep the rules, their warmups follow the published rules, and bad
// parameters get one line naming the rule.
#include <gtest/gtest.h>

#include <algorithm>

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

TEST(Generators, OneFOneBWarmupIsMinOfPMinusRMinusOneAndM) {
  for (int p : {1, 2, 4, 8})
    for (int m : {1, 3, 4, 8, 32}) {
      const Schedule s = generate_1f1b({p, m, 0});
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(warmup_forwards_1f1b(p, r, m), std::min(p - r - 1, m));
        // REFERENCE.md: warmup forwards min(p − r − 1, m), then the steady phase's first forward.
        EXPECT_EQ(forwards_before_first_backward(s.programs[r]), std::min(p - r - 1, m) + (m > p - r - 1 ? 1 : 0))
            << "p=" << p << " m=" << m << " rank " << r;
      }
    }
}

TEST(Generators, InterleavedFollowsMegatronsWarmupRule) {
  for (int p : {2, 3, 4, 8})
    for (int v : {2, 3, 4})
      for (int m : {p, 2 * p, 4 * p}) {
        const Schedule s = generate_interleaved({p, m, v});
        for (int r = 0; r < p; ++r) {
          // REFERENCE.md: 2(p − r − 1) + (v − 1)p, capped at m·v; Megatron runs every forward first when m == p.
          const int expected = m == p ? m * v : std::min(2 * (p - r - 1) + (v - 1) * p, m * v);
          EXPECT_EQ(warmup_forwards_interleaved(p, r, m, v), expected);
          EXPECT_EQ(forwards_before_first_backward(s.programs[r]), expected + (expected < m * v ? 1 : 0))
              << "p=" << p << " v=" << v << " m=" << m << " rank " << r;
        }
      }
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

TEST(Generators, BadParametersGetOneLineNamingTheRule) {
  EXPECT_EQ(error_of([] { generate_schedule("1f1b", {0, 8, 0}); }), "--pp 0: must be at least 1");
  EXPECT_EQ(error_of([] { generate_schedule("1f1b", {-2, 8, 0}); }), "--pp -2: must be at least 1");
  EXPECT_EQ(error_of([] { generate_schedule("gpipe", {4, 0, 0}); }), "--microbatches 0: must be at least 1");
  EXPECT_EQ(error_of([] { generate_schedule("gpipe", {4, -1, 0}); }), "--microbatches -1: must be at least 1");
  EXPECT_EQ(error_of([] { generate_schedule("zigzag", {4, 8, 0}); }),
            "--schedule zigzag: unknown schedule; known: gpipe, 1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipe, dualpipev");
  EXPECT_EQ(error_of([] { generate_schedule("interleaved", {4, 10, 2}); }),
            "--microbatches 10: interleaved (Megatron's order) needs a multiple of --pp (4); 10 % 4 = 2");
  EXPECT_EQ(error_of([] { generate_schedule("interleaved", {4, 2, 2}); }),
            "--microbatches 2: interleaved needs at least --pp (4) micro-batches");
  EXPECT_EQ(error_of([] { generate_schedule("interleaved", {4, 8, -1}); }), "--chunks -1: must be at least 1");
  EXPECT_EQ(error_of([] { generate_schedule("1f1b", {4, 8, 2}); }), "--chunks 2: 1f1b has 1 chunk(s) per rank");
}

}  // namespace
}  // namespace pipegrid
