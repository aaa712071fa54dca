// The zero-bubble schedules of Qi et al. 2024 ("Zero Bubble Pipeline Parallelism", ICLR 2024; the
// arXiv version, 2401.10241, adds ZB-V in §6 — section and table numbers here are that version's):
// ZB-H1, ZB-H2 and ZB-V against the paper's closed forms (its Table 2 and §6), its memory claims,
// and the bubble rates of its Table 5 recomputed from its profiled times.
//
// "Bubble" is the paper's (§5.3, and the objective (3) of its ILP in Appendix G): the longest time a
// rank spends from the start of its first op to the end of its last, less one rank's compute. It
// leaves out the (p − 1)F ramp before the last rank can start, which no schedule avoids; the
// makespan includes it, and each test says which of the two it asserts.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/memory.h"
#include "schedules/schedule_csv.h"
#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/timing.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::error_of;

// Binary fractions: every sum the engine forms is exact, so closed forms compare with ==.
const std::vector<double> kTimes = {0.5, 0.75, 1, 1.5, 2.25};

// F, B = I + W and W as the engine takes them, from the paper's F, B (our I) and W.
ActionTimes split_times(double f, double i, double w) { return ActionTimes{f, i + w, w, std::nullopt}; }

Timing time_with_spans(const Schedule& s, const ActionTimes& t) { return time_schedule(s, t, {0, true}); }

// The paper's cost: the longest span of a rank, first op's start to last op's end.
double paper_cost(const Schedule& s, const Timing& t) {
  double cost = 0;
  for (int r = 0; r < s.ranks; ++r)
    if (!t.spans[r].empty()) cost = std::max(cost, t.spans[r].back().end - t.spans[r].front().start);
  return cost;
}

// One rank's compute: m micro-batches on each of its v stages.
double rank_compute(const Schedule& s, const ActionTimes& t) {
  return s.microbatches * s.chunks * (t.f + t.i() + t.w);
}

double paper_bubble(const Schedule& s, const ActionTimes& t) {
  return paper_cost(s, time_with_spans(s, t)) - rank_compute(s, t);
}

// Peak micro-batches per rank whose forward has run and whose I (or B) has not: the activations the
// paper counts as M_B. The rest of what peak_activations counts waits only for its W (M_W < M_B).
std::vector<int> awaiting_input_gradient_peaks(const Schedule& s) {
  std::vector<int> peaks(s.ranks, 0);
  for (int r = 0; r < s.ranks; ++r) {
    int live = 0;
    for (const Op& op : s.programs[r]) {
      live += op.first.kind == Kind::F;
      peaks[r] = std::max(peaks[r], live);
      live -= op.first.kind == Kind::I || op.first.kind == Kind::B;
    }
  }
  return peaks;
}

int forwards_before_first_backward(const std::vector<Op>& program) {
  return static_cast<int>(std::find_if(program.begin(), program.end(),
                                       [](const Op& op) { return op.first.kind != Kind::F; }) -
                          program.begin());
}

// How many I's each W of the program trails its own I by: the I's that run between the two.
std::vector<int> weight_lags(const std::vector<Op>& program) {
  std::vector<int> lags;
  for (std::size_t pos = 0; pos < program.size(); ++pos) {
    if (program[pos].first.kind != Kind::W) continue;
    int lag = 0;
    for (std::size_t back = pos; back-- > 0;) {
      const Action& a = program[back].first;
      if (a.kind != Kind::I) continue;
      if (a.stage == program[pos].first.stage && a.microbatch == program[pos].first.microbatch) break;
      ++lag;
    }
    lags.push_back(lag);
  }
  return lags;
}

std::vector<Op> without_weight_passes(std::vector<Op> program) {
  std::erase_if(program, [](const Op& op) { return op.first.kind == Kind::W; });
  return program;
}

TEST(ZeroBubble, EveryScheduleIsValidAndDeadlockFree) {
  for (const char* name : {"zb-h1", "zb-h2", "zbv"})
    for (int p : {1, 2, 3, 4, 5, 8})
      for (int m = (std::string(name) == "zb-h2" ? 2 * p - 1 : 1); m <= 3 * p + 2; ++m) {
        const Schedule s = generate_schedule(name, {p, m, 0});
        SCOPED_TRACE(::testing::Message() << name << " p=" << p << " m=" << m);
        ASSERT_NO_THROW(validate(s));
        EXPECT_FALSE(find_deadlock(s).has_value());
        // validate() checks each stage runs F, I and W once per micro-batch; no B is left.
        for (const auto& program : s.programs)
          for (const Op& op : program) EXPECT_NE(op.first.kind, Kind::B);
        EXPECT_EQ(s.num_ops(), 3u * s.num_stages() * m);
      }
}

TEST(ZeroBubble, BadParametersGetOneLineNamingTheRule) {
  // ZB-H2's rank 0 runs 2p − 1 forwards before its first backward (§2.2).
  EXPECT_EQ(error_of([] { generate_schedule("zb-h2", {4, 6, 0}); }),
            "--microbatches 6: zb-h2 needs at least 2 * --pp - 1 (7) micro-batches");
  EXPECT_EQ(error_of([] { generate_zb_h2({8, 3, 1}); }),
            "--microbatches 3: zb-h2 needs at least 2 * --pp - 1 (15) micro-batches");
  EXPECT_EQ(error_of([] { generate_schedule("zb-h2", {4, 7, 0}); }), "");
  EXPECT_EQ(error_of([] { generate_schedule("zb-h2", {1, 1, 0}); }), "");
  // ZB-H1 takes any m, as 1F1B does; ZB-V too, as PyTorch's ScheduleZBVZeroBubble does.
  EXPECT_EQ(error_of([] { generate_schedule("zb-h1", {8, 1, 0}); }), "");
  EXPECT_EQ(error_of([] { generate_schedule("zbv", {8, 1, 0}); }), "");
  EXPECT_EQ(error_of([] { generate_schedule("zbv", {4, 8, 3}); }), "--chunks 3: zbv has 2 chunk(s) per rank");
  EXPECT_EQ(error_of([] { generate_schedule("zb-h1", {4, 8, 2}); }), "--chunks 2: zb-h1 has 1 chunk(s) per rank");
}

// --- ZB-H1 (§2.1) ---------------------------------------------------------------------------------

TEST(ZbH1, IsOneFOneBWithEachWTrailingItsIByTheRank) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {1, 2, 3, 4, 7, 8, 9, 16}) {
      const Schedule zb = generate_zb_h1({p, m, 0});
      const Schedule one_f_one_b = generate_1f1b({p, m, 0});
      for (int r = 0; r < p; ++r) {
        SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " rank " << r);
        // Without its W's, rank r runs 1F1B's program with B cut down to I.
        std::vector<Op> expected = one_f_one_b.programs[r];
        for (Op& op : expected) op.first.kind = op.first.kind == Kind::B ? Kind::I : op.first.kind;
        EXPECT_EQ(without_weight_passes(zb.programs[r]), expected);
        // Each W runs r I's after its own (the paper's start of W "depending on the number of
        // warm-up microbatches", p − r − 1); the last ones close the program.
        const auto lags = weight_lags(zb.programs[r]);
        const int trailing = std::min(r, m);
        for (int k = 0; k < m - trailing; ++k) EXPECT_EQ(lags[k], r) << "W" << k;
        for (int k = 3 * m - trailing; k < 3 * m; ++k) EXPECT_EQ(zb.programs[r][k].first.kind, Kind::W);
      }
    }
}

TEST(ZbH1, HoldsOneFOneBsPeakActivations) {
  // The paper: worker i holds (p − i + 1)M_B + (i − 1)M_W, so the peak over workers is p M_B on the
  // first, as in 1F1B. Counted until W, every rank holds min(p, m); counted until I, rank r holds
  // 1F1B's min(p − r, m).
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {1, 2, 3, 4, 7, 8, 9, 16}) {
      const Schedule zb = generate_zb_h1({p, m, 0});
      const auto one_f_one_b = peak_activations(generate_1f1b({p, m, 0}));
      const auto until_w = peak_activations(zb);
      const auto until_i = awaiting_input_gradient_peaks(zb);
      EXPECT_EQ(*std::max_element(until_w.begin(), until_w.end()), one_f_one_b[0]);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(until_w[r], std::min(p, m)) << "p=" << p << " m=" << m << " rank " << r;
        EXPECT_EQ(until_i[r], one_f_one_b[r]) << "p=" << p << " m=" << m << " rank " << r;
      }
    }
}

// The paper's (p − 1)(F + I − W), exact for m ≥ p exactly when W ≤ F — the paper's own regime,
// W < F < I for a transformer (§2.3). Why: the last rank, then never idle once started at (p − 1)F,
// ends its last I after m(F + I) + (m − p + 1)W of work (its last p − 1 W's come after); that I
// then goes back to rank 0 through p − 1 more I's, and rank 0 has no W left to run after it. The
// makespan is that cost too when W ≤ I (otherwise the last rank's own W's end later).
TEST(ZbH1, BubbleIsPMinusOneTimesFPlusIMinusWWhenWIsAtMostF) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {p, p + 1, 2 * p, 3 * p + 1})
      for (double f : kTimes)
        for (double i : kTimes)
          for (double w : kTimes) {
            if (w > f) continue;
            const ActionTimes t = split_times(f, i, w);
            const Schedule s = generate_zb_h1({p, m, 0});
            const Timing timing = time_with_spans(s, t);
            const double bubble = (p - 1) * (f + i - w);
            SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " F=" << f << " I=" << i << " W=" << w);
            ASSERT_EQ(paper_cost(s, timing), m * (f + i + w) + bubble);
            if (w <= i) {
              EXPECT_EQ(timing.makespan, m * (f + i + w) + bubble);
            }
          }
}

TEST(ZbH1, BubbleOutsideThePapersAssumptions) {
  for (int p : {2, 3, 4, 8})
    for (double f : kTimes)
      for (double i : kTimes)
        for (double w : kTimes) {
          const ActionTimes t = split_times(f, i, w);
          SCOPED_TRACE(::testing::Message() << "p=" << p << " F=" << f << " I=" << i << " W=" << w);
          // W > F (m ≥ p): rank 0 still waits (p − 1)I for its first I — the first micro-batch's
          // pF + (p − 1)I against its p forwards — and no more; the W's fill everything else. Found
          // with the engine, not in the paper.
          if (w > f) {
            for (int m : {p, 2 * p + 1})
              EXPECT_EQ(paper_bubble(generate_zb_h1({p, m, 0}), t), (p - 1) * i) << "m=" << m;
          }
          // Any times and m, fewer micro-batches than ranks included: no closed form claimed, but
          // never slower than 1F1B (B = I + W).
          for (int m : {1, p - 1, p, 2 * p + 1}) {
            if (m < 1) continue;
            const double one_f_one_b = time_schedule(generate_1f1b({p, m, 0}), t).makespan;
            const Schedule s = generate_zb_h1({p, m, 0});
            const Timing timing = time_with_spans(s, t);
            EXPECT_LE(timing.makespan, one_f_one_b) << "m=" << m;
            EXPECT_LE(paper_cost(s, timing), one_f_one_b) << "m=" << m;
          }
        }
}

// --- ZB-H2 (§2.2) ---------------------------------------------------------------------------------

TEST(ZbH2, RunsTwoPMinusOneForwardsFirstAndEachWTwoRIsLate) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {2 * p - 1, 2 * p, 3 * p + 1}) {
      const Schedule s = generate_zb_h2({p, m, 0});
      for (int r = 0; r < p; ++r) {
        SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " rank " << r);
        const int first = 2 * (p - r) - 1;
        EXPECT_EQ(forwards_before_first_backward(s.programs[r]), first);
        // After the warmup, one I then one F while forwards are left: 1F1B's alternation.
        std::vector<Op> alternation;
        for (int k = 0; k < first; ++k) alternation.emplace_back(Action{r, k, Kind::F});
        for (int k = 0; k < m; ++k) {
          alternation.emplace_back(Action{r, k, Kind::I});
          if (first + k < m) alternation.emplace_back(Action{r, first + k, Kind::F});
        }
        EXPECT_EQ(without_weight_passes(s.programs[r]), alternation);
        const auto lags = weight_lags(s.programs[r]);
        for (int k = 0; k < m - 2 * r; ++k) EXPECT_EQ(lags[k], 2 * r) << "W" << k;
      }
    }
}

TEST(ZbH2, HoldsTwoPMinusOneActivationsOnEveryRank) {
  // The paper: worker i holds (2p − 2i + 1)M_B + (2i − 2)M_W, peak (2p − 1)M_B.
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {2 * p - 1, 2 * p, 3 * p + 1}) {
      const Schedule s = generate_zb_h2({p, m, 0});
      const auto until_w = peak_activations(s);
      const auto until_i = awaiting_input_gradient_peaks(s);
      for (int r = 0; r < p; ++r) {
        EXPECT_EQ(until_w[r], 2 * p - 1) << "p=" << p << " m=" << m << " rank " << r;
        EXPECT_EQ(until_i[r], 2 * (p - r) - 1) << "p=" << p << " m=" << m << " rank " << r;
      }
    }
}

// Zero bubble when F + I = 2W and W ≤ F (so I ≤ W ≤ F; F = I = W is the paper's case): every rank
// computes without a break from its first op to its last — the parallelogram of Figure 3 — and the
// makespan is m(F + I + W) + (p − 1)F, the least any schedule can have: the last rank cannot start
// before (p − 1)F and has m(F + I + W) to do.
TEST(ZbH2, ZeroBubbleWhenFPlusIIsTwoW) {
  struct Times { double f, i, w; };
  for (const Times& c : {Times{1, 1, 1}, Times{0.5, 0.5, 0.5}, Times{1.5, 0.5, 1}, Times{2.25, 0.75, 1.5},
                         Times{1.25, 0.75, 1}})
    for (int p : {1, 2, 3, 4, 8})
      for (int m : {2 * p - 1, 2 * p, 3 * p + 1, 8 * p}) {
        const ActionTimes t = split_times(c.f, c.i, c.w);
        const Schedule s = generate_zb_h2({p, m, 0});
        const Timing timing = time_with_spans(s, t);
        SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " F=" << c.f << " I=" << c.i << " W=" << c.w);
        EXPECT_EQ(paper_cost(s, timing), m * (c.f + c.i + c.w));
        EXPECT_EQ(timing.makespan, m * (c.f + c.i + c.w) + (p - 1) * c.f);
      }
}

// The paper's (p − 1)(F + I − 2W) is exact when W ≤ F and F + I ≥ 2W. Outside, the engine gives
// (p − 1)·max(F + I − 2W, I − F, 0): when I > F the 2p − 1 warmup forwards, (2p − 1)F, no longer
// cover rank 0's wait for its first I, pF + (p − 1)I; when F + I < 2W the W's are more than the
// bubbles to fill. The second term is ours, found with the engine, not in the paper.
TEST(ZbH2, BubbleIsPMinusOneTimesFPlusIMinusTwoW) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {2 * p - 1, 2 * p, 3 * p + 1})
      for (double f : kTimes)
        for (double i : kTimes)
          for (double w : kTimes) {
            const ActionTimes t = split_times(f, i, w);
            const double bubble = paper_bubble(generate_zb_h2({p, m, 0}), t);
            SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " F=" << f << " I=" << i << " W=" << w);
            if (w <= f && f + i >= 2 * w) {
              ASSERT_EQ(bubble, (p - 1) * (f + i - 2 * w));
            }
            ASSERT_EQ(bubble, (p - 1) * std::max({f + i - 2 * w, i - f, 0.0}));
          }
}

// --- ZB-V (§6) ------------------------------------------------------------------------------------

TEST(Zbv, WarmsUpAsThePaperAndPyTorchDo) {
  // Worker i = r + 1 runs 2p − i forwards of its first chunk and i − 1 of its second, then
  // (PyTorch's count) p − r groups F-I-W of its second chunk.
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {2 * p - 1, 3 * p}) {
      const Schedule s = generate_zbv({p, m, 0});
      for (int r = 0; r < p; ++r) {
        SCOPED_TRACE(::testing::Message() << "p=" << p << " m=" << m << " rank " << r);
        const auto& program = s.programs[r];
        ASSERT_EQ(forwards_before_first_backward(program), 2 * p);  // the warmup and the first group's F
        const auto first_chunk = std::count_if(program.begin(), program.begin() + 2 * p - 1,
                                               [&](const Op& op) { return op.first.stage == r; });
        EXPECT_EQ(first_chunk, 2 * p - r - 1);
        constexpr Kind kGroup[] = {Kind::F, Kind::I, Kind::W};
        for (int g = 0; g < p - r; ++g)
          for (int k = 0; k < 3; ++k) {
            const Action& a = program[static_cast<std::size_t>(2 * p - 1 + 3 * g + k)].first;
            EXPECT_EQ(a.stage, 2 * p - 1 - r);
            EXPECT_EQ(a.kind, kGroup[k]);
          }
      }
    }
}

// PyTorch's ScheduleZBVZeroBubble._calculate_single_rank_operations for p = 3, m = 4 — built for
// 2p − 1 = 5 micro-batches, micro-batch 4 dropped — as a Python transcription of it prints (torch
// itself is not installed here); same programs for p ≤ 8 and m ≤ 20.
TEST(Zbv, IsPyTorchsOrder) {
  std::ostringstream csv;
  write_schedule_csv(csv, generate_zbv({3, 4, 0}));
  EXPECT_EQ(csv.str(),
            "0F0,0F1,0F2,0F3,5F0,5I0,5W0,5F1,5I1,5W1,5F2,5I2,5W2,0I0,0W0,5F3,5I3,5W3,0I1,0W1,0I2,0W2,0I3,0W3\n"
            "1F0,1F1,1F2,4F0,1F3,4F1,4I0,4W0,4F2,4I1,4W1,1I0,1W0,4F3,4I2,4W2,1I1,1W1,4I3,4W3,1I2,1I3,1W2,1W3\n"
            "2F0,3F0,2F1,3F1,2F2,3F2,3I0,3W0,2F3,2I0,2W0,3F3,3I1,3W1,2I1,2W1,3I2,3W2,2I2,3I3,2I3,2W2,3W3,2W3\n");
}

// F = I = W and m ≥ 2p − 1: no rank waits once started, so the paper's bubble is zero, and the
// makespan is 2m(F + I + W) + (p − 1)F, the least possible (the last rank's first stage cannot
// start before (p − 1)F and it has 2m(F + I + W) to do). With fewer micro-batches it is not zero.
TEST(Zbv, ZeroBubbleWhenFIAndWAreEqual) {
  for (double x : {0.5, 1.0, 2.25})
    for (int p : {1, 2, 3, 4, 8}) {
      const ActionTimes t = split_times(x, x, x);
      for (int m : {2 * p - 1, 2 * p, 3 * p + 1, 8 * p}) {
        const Schedule s = generate_zbv({p, m, 0});
        const Timing timing = time_with_spans(s, t);
        EXPECT_EQ(paper_cost(s, timing), 2 * m * 3 * x) << "p=" << p << " m=" << m;
        EXPECT_EQ(timing.makespan, 2 * m * 3 * x + (p - 1) * x) << "p=" << p << " m=" << m;
      }
      if (p > 1) {
        EXPECT_GT(paper_bubble(generate_zbv({p, 2 * p - 2, 0}), t), 0) << "p=" << p;
      }
    }
}

// The paper: "ZB-V achieves zero bubble with a peak activations memory of pM_B", M_B being a whole
// stage's. peak_activations counts virtual stages, half a stage each here: 2p on every rank, twice
// 1F1B's rank 0 on the same ranks — the same memory. Fewer micro-batches than 2p − 1, at most that.
TEST(Zbv, HoldsOneFOneBsPeakInWholeStages) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m = 1; m <= 3 * p + 1; ++m) {
      const auto peaks = peak_activations(generate_zbv({p, m, 0}));
      const int one_f_one_b = peak_activations(generate_1f1b({p, m, 0}))[0];
      for (int r = 0; r < p; ++r) {
        if (m >= 2 * p - 1) {
          EXPECT_EQ(peaks[r], 2 * p) << "p=" << p << " m=" << m << " rank " << r;
          EXPECT_EQ(peaks[r], 2 * one_f_one_b);
        } else {
          EXPECT_LE(peaks[r], 2 * std::min(p, m)) << "p=" << p << " m=" << m << " rank " << r;
        }
      }
    }
}

// Unequal times: the paper claims nothing (PyTorch's docstring: zero bubble "only if" F = I = W).
// Bound: never slower than 1F1B running the same model over the same ranks (whole stages: 2F, 2B).
TEST(Zbv, NeverSlowerThanOneFOneBOnTheSameModel) {
  for (int p : {1, 2, 3, 4, 8})
    for (int m : {1, p, 2 * p - 1, 3 * p + 1})
      for (double f : kTimes)
        for (double i : kTimes)
          for (double w : kTimes) {
            const ActionTimes chunk = split_times(f, i, w);
            const ActionTimes whole = split_times(2 * f, 2 * i, 2 * w);
            EXPECT_LE(time_schedule(generate_zbv({p, m, 0}), chunk).makespan,
                      time_schedule(generate_1f1b({p, m, 0}), whole).makespan)
                << "p=" << p << " m=" << m << " F=" << f << " I=" << i << " W=" << w;
          }
}

// --- The paper's Table 5 ---------------------------------------------------------------------------

// Table 9 (Appendix D, "Profiled time of T_F, T_B, T_W, and T_comm", measured in ZB-2p runs) and the
// 1F1B, ZB-H1 and ZB-H2 columns of Table 5 (§5.3, "Bubble rates ... under different settings",
// theoretical), arXiv 2401.10241. The paper's B is our I.
struct PaperSetting {
  const char* model;
  int p, m;
  double f, b, w, comm;
  double one_f_one_b, zb_h1, zb_h2;
};
constexpr PaperSetting kTable5[] = {
    {"1.5B", 8, 24, 18.522, 18.086, 9.337, 0.601, 0.2431, 0.1585, 0.1083},
    {"1.5B", 8, 32, 18.513, 18.086, 9.331, 0.626, 0.1985, 0.1242, 0.0837},
    {"1.5B", 8, 64, 18.546, 18.097, 9.321, 0.762, 0.1240, 0.0674, 0.0444},
    {"6.2B", 8, 24, 29.718, 29.444, 19.927, 0.527, 0.2347, 0.1323, 0.0698},
    {"6.2B", 8, 32, 29.802, 29.428, 19.530, 0.577, 0.1898, 0.1045, 0.0559},
    {"6.2B", 8, 64, 29.935, 29.621, 19.388, 0.535, 0.1091, 0.0554, 0.0294},
    {"14.6B", 16, 48, 11.347, 11.248, 8.132, 0.377, 0.2552, 0.1397, 0.0672},
    {"14.6B", 16, 64, 11.307, 11.254, 8.101, 0.379, 0.2082, 0.1088, 0.0516},
    {"14.6B", 16, 128, 11.325, 11.308, 8.109, 0.378, 0.1251, 0.0576, 0.0266},
    {"28.3B", 32, 96, 10.419, 10.207, 7.715, 0.408, 0.2646, 0.1421, 0.0641},
    {"28.3B", 32, 128, 10.408, 10.204, 7.703, 0.408, 0.2168, 0.1106, 0.0490},
    {"28.3B", 32, 256, 10.402, 10.248, 7.698, 0.460, 0.1352, 0.0594, 0.0257},
};

// The paper's bubble rate: (cost − m(T_F + T_B + T_W)) / cost, cost its longest rank span.
double bubble_rate(const Schedule& s, const Timing& t, const PaperSetting& row) {
  const double cost = paper_cost(s, t);
  return (cost - row.m * (row.f + row.b + row.w)) / cost;
}

// Compute-only, transfers delaying only their receiver.
double bubble_rate(const char* name, const PaperSetting& row) {
  const Schedule s = generate_schedule(name, {row.p, row.m, 0});
  return bubble_rate(s, time_schedule(s, split_times(row.f, row.b, row.w), {row.comm, true}), row);
}

// Lowered by a comm plan and timed with the given p2p semantics.
double bubble_rate(const char* name, const PaperSetting& row, CommPlan plan, P2pMode mode) {
  const Schedule s = lower(generate_schedule(name, {row.p, row.m, 0}), plan);
  const CommTiming t = time_lowered(s, split_times(row.f, row.b, row.w), {row.comm, mode, 1, true});
  EXPECT_FALSE(t.deadlock);
  return bubble_rate(s, t.timing, row);
}

// Its model of communication is its ILP's (Appendix G, constraints (4) and (5)): a result reaches
// the next rank T_comm after the op that made it ends, and the sender goes on at once — our Async.
// 1F1B runs B = T_B + T_W unsplit. Every rate comes out to the table's four decimals.
TEST(ZeroBubblePaper, Table5BubbleRatesWithAsyncCommunication) {
  for (const PaperSetting& row : kTable5) {
    SCOPED_TRACE(::testing::Message() << row.model << " p=" << row.p << " m=" << row.m);
    EXPECT_NEAR(bubble_rate("1f1b", row), row.one_f_one_b, 0.00005);
    EXPECT_NEAR(bubble_rate("zb-h1", row), row.zb_h1, 0.00005);
    EXPECT_NEAR(bubble_rate("zb-h2", row), row.zb_h2, 0.00005);
  }
}

// The comm engine agrees: lowered by PyTorch's plan (each receive waited by the op that reads it) with
// async sends, every schedule times exactly as the compute-only engine times it.
TEST(ZeroBubblePaper, Table5TheSameThroughTheCommEngine) {
  for (const PaperSetting& row : kTable5) {
    SCOPED_TRACE(::testing::Message() << row.model << " p=" << row.p << " m=" << row.m);
    for (const char* name : {"1f1b", "zb-h1", "zb-h2"})
      EXPECT_DOUBLE_EQ(bubble_rate(name, row, CommPlan::Torch, P2pMode::Async), bubble_rate(name, row)) << name;
  }
}

// The zero-bubble repository's own plan posts each receive before the compute that runs when its
// peer sends, so rendezvous sends complete as soon as they start: the table is reproduced with
// rendezvous p2p too. Batching each op's sends with the next op's receives and waiting for them at
// once (per-op) is not a plan ZB-H2 survives: it deadlocks.
TEST(ZeroBubblePaper, Table5UnderRendezvousWithTheRepositorysPlan) {
  for (const PaperSetting& row : kTable5) {
    SCOPED_TRACE(::testing::Message() << row.model << " p=" << row.p << " m=" << row.m);
    EXPECT_NEAR(bubble_rate("zb-h1", row, CommPlan::Zb, P2pMode::Rendezvous), row.zb_h1, 0.00005);
    EXPECT_NEAR(bubble_rate("zb-h2", row, CommPlan::Zb, P2pMode::Rendezvous), row.zb_h2, 0.00005);
    const Schedule s = lower(generate_schedule("zb-h2", {row.p, row.m, 0}), CommPlan::PerOp);
    EXPECT_TRUE(time_lowered(s, split_times(row.f, row.b, row.w), {row.comm, P2pMode::Rendezvous}).deadlock);
  }
}

}  // namespace
}  // namespace pipegrid
