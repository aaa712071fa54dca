// The contention-free engine against the closed forms of docs/reference.md and the numbers of the
// reference simulator pipegrid started from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "schedules/generators.h"
#include "schedules/memory.h"
#include "schedules/timing.h"

namespace pipegrid {
namespace {

// Binary fractions, so sums in any order are exact and the closed forms can be compared with ==.
const ActionTimes kUnequal{1.5, 2.25, 0.75, std::nullopt};

double total_compute(const Schedule& s, const ActionTimes& t) {
  return s.num_stages() * static_cast<double>(s.microbatches) * (t.f + t.b);
}

TEST(ClosedForms, ReferenceSimulatorNumbers) {
  // docs/reference.md, F = 1, B = 2: p = 4, m = 8 → makespan 33, bubble 0.273, stage 0 holds 8 (GPipe)
  // vs 4 (1F1B); p = 8, m = 32 → 117, 0.179, 32 vs 8.
  struct Case { int p, m; double makespan, bubble; int gpipe_peak, one_f_one_b_peak; };
  for (const Case& c : {Case{4, 8, 33, 0.273, 8, 4}, Case{8, 32, 117, 0.179, 32, 8}}) {
    for (const char* name : {"gpipe", "1f1b"}) {
      const Schedule s = generate_schedule(name, {c.p, c.m, 0});
      const Timing t = time_schedule(s, ActionTimes{1, 2, 1, std::nullopt});
      EXPECT_EQ(t.makespan, c.makespan) << name << " p=" << c.p;
      EXPECT_NEAR(t.bubble_fraction, c.bubble, 0.0005) << name << " p=" << c.p;
      EXPECT_EQ(peak_activations(s)[0], std::string(name) == "gpipe" ? c.gpipe_peak : c.one_f_one_b_peak);
    }
  }
}

TEST(ClosedForms, GPipeAndOneFOneBTake_MPlusPMinusOne_TimesFPlusB) {
  for (const char* name : {"gpipe", "1f1b"})
    for (int p : {1, 2, 3, 4, 7, 8, 16})
      for (int m : {1, 2, 3, 5, 8, 13, 32}) {
        const Schedule s = generate_schedule(name, {p, m, 0});
        const Timing t = time_schedule(s, kUnequal);
        const double makespan = (m + p - 1) * (kUnequal.f + kUnequal.b);
        ASSERT_EQ(t.makespan, makespan) << name << " p=" << p << " m=" << m;
        EXPECT_DOUBLE_EQ(t.bubble_fraction, 1 - total_compute(s, kUnequal) / (p * makespan));
        for (int r = 0; r < p; ++r) {
          EXPECT_EQ(t.ranks[r].busy, m * (kUnequal.f + kUnequal.b));
          EXPECT_EQ(t.ranks[r].idle, makespan - m * (kUnequal.f + kUnequal.b));
        }
      }
}

TEST(ClosedForms, InterleavedTakes_MVPlusPMinusOne_TimesPerChunkFPlusB) {
  for (int p : {1, 2, 3, 4, 8})
    for (int v : {1, 2, 3, 4})
      for (int groups : {1, 2, 3, 8}) {
        const int m = groups * p;
        const Schedule s = generate_interleaved({p, m, v});
        const Timing t = time_schedule(s, kUnequal);
        EXPECT_EQ(t.makespan, (m * v + p - 1) * (kUnequal.f + kUnequal.b)) << "p=" << p << " v=" << v << " m=" << m;
      }
}

TEST(ClosedForms, GPipeWithLatencyAddsTwoLatenciesPerBoundary) {
  // The forwards reach the last rank after (p − 1)(F + L), the last backward leaves it and comes back
  // to rank 0 after (p − 1)(B + L): makespan (m + p − 1)(F + B) + 2(p − 1)L.
  const double latency = 0.5;
  for (int p : {2, 4, 8})
    for (int m : {1, 4, 16}) {
      const Timing t = time_schedule(generate_gpipe({p, m, 1}), kUnequal, {latency, false});
      EXPECT_EQ(t.makespan, (m + p - 1) * (kUnequal.f + kUnequal.b) + 2 * (p - 1) * latency) << "p=" << p << " m=" << m;
    }
}

TEST(ClosedForms, PeakActivationsPerRank) {
  for (int p : {1, 2, 4, 8})
    for (int m : {1, 3, 4, 8, 32}) {
      const auto gpipe = peak_activations(generate_gpipe({p, m, 1}));
      const auto one_f_one_b = peak_activations(generate_1f1b({p, m, 1}));
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(gpipe[r], m);
        EXPECT_EQ(one_f_one_b[r], std::min(p - r, m)) << "p=" << p << " m=" << m << " rank " << r;
      }
    }
  // Interleaved: the warmup forwards plus the first steady forward are live before the first
  // backward frees one, i.e. 2(p − r − 1) + (v − 1)p + 1 virtual stages, all m·v when m == p.
  for (int p : {2, 4})
    for (int v : {2, 3})
      for (int m : {p, 2 * p, 8 * p}) {
        const auto peaks = peak_activations(generate_interleaved({p, m, v}));
        for (int r = 0; r < p; ++r)
          EXPECT_EQ(peaks[r], m == p ? m * v : std::min(2 * (p - r - 1) + (v - 1) * p + 1, m * v))
              << "p=" << p << " v=" << v << " m=" << m << " rank " << r;
      }
}

}  // namespace
}  // namespace pipegrid
