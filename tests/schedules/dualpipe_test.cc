// DeepSeek's bidirectional schedules against their sources: PyTorch's DualPipeV trace action for
// action, the eight phases of dualpipe.py and dualpipev.py run by hand, DeepSeek's bubble formula
// (exact where its assumptions hold, bounded where they do not) and its PP + 1 activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/memory.h"
#include "schedules/schedule_csv.h"
#include "schedules/timing.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::error_of;

struct Grid {
  int p, m;
};

// docs/reference.md's grids: DualPipe needs p even, m even, m ≥ 2p; DualPipeV m ≥ 2p.
std::vector<Grid> dualpipe_grid() {
  std::vector<Grid> grid;
  for (int p : {2, 4, 6, 8})
    for (int m : {2 * p, 2 * p + 2, 3 * p, 4 * p, 4 * p + 6})
      if (m % 2 == 0 && (grid.empty() || grid.back().m != m)) grid.push_back({p, m});
  return grid;
}
std::vector<Grid> dualpipev_grid() {
  std::vector<Grid> grid;
  for (int p : {1, 2, 3, 4, 5, 8})
    for (int m : {2 * p, 2 * p + 1, 3 * p, 4 * p + 3})
      if (grid.empty() || grid.back().m != m) grid.push_back({p, m});
  return grid;
}

// ---- The reference trace -------------------------------------------------------------------------

TEST(DualPipeV, ReproducesPyTorchsReferenceTraceActionForAction) {
  const CsvSchedule reference =
      read_schedule_csv_file(PIPEGRID_TEST_DATA "/dualpipev_4rank_10mb.csv", CsvPlacement::V);
  const Schedule generated = generate_dualpipev({4, 10, 2});
  ASSERT_EQ(generated.ranks, reference.schedule.ranks);
  EXPECT_EQ(generated.microbatches, reference.schedule.microbatches);
  EXPECT_EQ(generated.layout.rank_of_stage, reference.schedule.layout.rank_of_stage);
  EXPECT_EQ(generated.layout.next, reference.schedule.layout.next);
  for (int r = 0; r < generated.ranks; ++r) {
    const auto& ours = generated.programs[r];
    const auto& theirs = reference.schedule.programs[r];
    ASSERT_EQ(ours.size(), theirs.size()) << "rank " << r;
    for (std::size_t i = 0; i < ours.size(); ++i)
      EXPECT_EQ(to_string(ours[i]), to_string(theirs[i])) << "rank " << r << ", position " << i;
  }
}

// ---- DeepSeek's eight phases ---------------------------------------------------------------------

// A rank's program in dualpipe.py's words: F0, B1, I0 … by phase (phase 0 is the rank's chunk that
// micro-batches reach first), a pair as (F0B1). W's are written without a phase:
// which chunk a W belongs to is the FIFO's business, checked by WeightsRunInTheOrderOfTheirInputs.
std::string phase_shape(const std::vector<Op>& program, int phase0_stage) {
  const auto token = [&](const Action& a) {
    return std::string(1, kind_letter(a.kind)) + (a.kind == Kind::W ? "" : a.stage == phase0_stage ? "0" : "1");
  };
  std::string shape;
  for (const Op& op : program) shape += op.is_pair() ? "(" + token(op[0]) + token(op[1]) + ")" : token(op[0]);
  return shape;
}

std::string program_text(const std::vector<Op>& program) {
  std::string text;
  for (const Op& op : program) {
    if (!text.empty()) text += ' ';
    text += to_string(op);
  }
  return text;
}

// The shapes below are dualpipe.py's step() (deepseek-ai/DualPipe at 3da1bbea) run by hand, one loop
// after the other, with half_rank h, num_half_ranks H = p/2, half_num_chunks n = m/2:
//   1 nF0      (H − h − 1)·2 × _forward_chunk(0)                          → F0
//   2 nF0F1    h + 1 × (F0, F1)
//   3 nB1W1F1  H − h − 1 × (_backward_chunk(1, enable_zb), _weight_chunk, F1)  → I1 W F1
//   4 main     n − 2H + h + 1 × ((F0;B1), (F1;B0)); at i = 0 the middle ranks (h = H − 1) run F0 and
//              B1 apart ("We don't overlap these two chunks")
//   5 nB1F1B0  H − h − 1 × (B1, (F1;B0))
//   6 nB1B0    h + 1 × (B1, B0); enable_zb turns on at i = (h + 1) / 2 — before that B1 when h is
//              odd, between B1 and B0 when h is even — and a zero-bubble backward is an I
//   7 nWB0     H − h − 1 × (W, I0)
//   8 nW       h + 1 × W
// Each shape holds n of each of F0, F1, B0/I0, B1/I1, as the counts confirm.
struct ShapeCase {
  int p, m;
  std::vector<std::string> shapes;  // by rank
};

// p = 2, m = 4: H = 1, n = 2, both ranks h = 0 and middle: loops 0, 1, 0, 1, 0, 1, 0, 1.
const std::string kP2M4 = "F0F1" "F0B1(F1B0)" "B1I0" "W";
// p = 4, m = 8: H = 2, n = 4. h = 0: loops 2, 1, 1, 1, 1, 1, 1, 1; h = 1 (middle): 0, 2, 0, 2, 0, 2, 0, 2.
const std::string kP4M8H0 = "F0F0" "F0F1" "I1WF1" "(F0B1)(F1B0)" "B1(F1B0)" "B1I0" "WI0" "W";
const std::string kP4M8H1 = "F0F1F0F1" "F0B1(F1B0)(F0B1)(F1B0)" "B1B0I1I0" "WW";
// p = 4, m = 10: n = 5, one more main iteration on every rank.
const std::string kP4M10H0 = "F0F0" "F0F1" "I1WF1" "(F0B1)(F1B0)(F0B1)(F1B0)" "B1(F1B0)" "B1I0" "WI0" "W";
const std::string kP4M10H1 = "F0F1F0F1" "F0B1(F1B0)(F0B1)(F1B0)(F0B1)(F1B0)" "B1B0I1I0" "WW";
// p = 6, m = 12: H = 3, n = 6. h = 0: 4, 1, 2, 1, 2, 1, 2, 1; h = 1: 2, 2, 1, 2, 1, 2, 1, 2;
// h = 2 (middle): 0, 3, 0, 3, 0, 3, 0, 3, its nB1B0 turning zero bubble between the second B1 and B0.
const std::string kP6M12H0 =
    "F0F0F0F0" "F0F1" "I1WF1I1WF1" "(F0B1)(F1B0)" "B1(F1B0)B1(F1B0)" "B1I0" "WI0WI0" "W";
const std::string kP6M12H1 =
    "F0F0" "F0F1F0F1" "I1WF1" "(F0B1)(F1B0)(F0B1)(F1B0)" "B1(F1B0)" "B1B0I1I0" "WI0" "WW";
const std::string kP6M12H2 = "F0F1F0F1F0F1" "F0B1(F1B0)(F0B1)(F1B0)(F0B1)(F1B0)" "B1B0B1I0I1I0" "WWW";

TEST(DualPipe, EveryRankRunsDualPipePysPhases) {
  // Rank r and p − 1 − r have the same h = min(r, p − 1 − r), so the same shape.
  const ShapeCase cases[] = {
      {2, 4, {kP2M4, kP2M4}},
      {4, 8, {kP4M8H0, kP4M8H1, kP4M8H1, kP4M8H0}},
      {4, 10, {kP4M10H0, kP4M10H1, kP4M10H1, kP4M10H0}},
      {6, 12, {kP6M12H0, kP6M12H1, kP6M12H2, kP6M12H2, kP6M12H1, kP6M12H0}},
  };
  for (const ShapeCase& c : cases) {
    const Schedule s = generate_dualpipe({c.p, c.m, 2});
    ASSERT_EQ(s.programs.size(), c.shapes.size());
    for (int r = 0; r < c.p; ++r) {
      // Ranks 0 … p/2 − 1 enter the forward direction (stage r), the others the reverse one.
      const int phase0_stage = r < c.p / 2 ? r : 2 * c.p - 1 - r;
      EXPECT_EQ(phase_shape(s.programs[r], phase0_stage), c.shapes[r]) << "p=" << c.p << " m=" << c.m << " rank " << r;
    }
  }
}

TEST(DualPipe, FourRanksEightMicrobatchesActionForAction) {
  // The shapes of p = 4, m = 8 with stages and micro-batches. Rank r holds forward stage r and reverse
  // stage 7 − r; micro-batches 0–3 enter forward, 4–7 reverse; each phase counts its F's and its B's
  // in order (dualpipe.py's current_f_chunk_id, current_b_chunk_id) and each W is the oldest pending I.
  // Ranks 2 and 3 are ranks 1 and 0 with the directions swapped.
  const Schedule s = generate_dualpipe({4, 8, 2});
  EXPECT_EQ(program_text(s.programs[0]),
            "0F0 0F1 0F2 7F4 7I4 7W4 7F5 (0F3;7B5) (7F6;0B0) 7B6 (7F7;0B1) 7B7 0I2 0W2 0I3 0W3");
  EXPECT_EQ(program_text(s.programs[1]),
            "1F0 6F4 1F1 6F5 1F2 6B4 (6F6;1B0) (1F3;6B5) (6F7;1B1) 6B6 1B2 6I7 1I3 6W7 1W3");
  EXPECT_EQ(program_text(s.programs[2]),
            "5F4 2F0 5F5 2F1 5F6 2B0 (2F2;5B4) (5F7;2B1) (2F3;5B5) 2B2 5B6 2I3 5I7 2W3 5W7");
  EXPECT_EQ(program_text(s.programs[3]),
            "4F4 4F5 4F6 3F0 3I0 3W0 3F1 (4F7;3B1) (3F2;4B4) 3B2 (3F3;4B5) 3B3 4I6 4W6 4I7 4W7");
}

TEST(DualPipeV, EveryRankRunsDualPipeVPysPhases) {
  // dualpipev.py's step() has the same eight loops with h = rank, H = num_ranks = p, n = num_chunks
  // = m, the last rank in the middle ranks' place. p = 1, m = 2 and p = 2, m = 4 give the DualPipe
  // shapes of H = 1 and H = 2 above. p = 3, m = 7 (H = 3, n = 7, main n − 2H + h + 1 = h + 2):
  // rank 0: 4, 1, 2, 2, 2, 1, 2, 1; rank 1: 2, 2, 1, 3, 1, 2, 1, 2; rank 2: 0, 3, 0, 4, 0, 3, 0, 3.
  const ShapeCase cases[] = {
      {1, 2, {kP2M4}},
      {2, 4, {kP4M8H0, kP4M8H1}},
      {3,
       7,
       {"F0F0F0F0" "F0F1" "I1WF1I1WF1" "(F0B1)(F1B0)(F0B1)(F1B0)" "B1(F1B0)B1(F1B0)" "B1I0" "WI0WI0" "W",
        "F0F0" "F0F1F0F1" "I1WF1" "(F0B1)(F1B0)(F0B1)(F1B0)(F0B1)(F1B0)" "B1(F1B0)" "B1B0I1I0" "WI0" "WW",
        "F0F1F0F1F0F1" "F0B1(F1B0)(F0B1)(F1B0)(F0B1)(F1B0)(F0B1)(F1B0)" "B1B0B1I0I1I0" "WWW"}},
  };
  for (const ShapeCase& c : cases) {
    const Schedule s = generate_dualpipev({c.p, c.m, 2});
    ASSERT_EQ(s.programs.size(), c.shapes.size());
    for (int r = 0; r < c.p; ++r)
      EXPECT_EQ(phase_shape(s.programs[r], r), c.shapes[r]) << "p=" << c.p << " m=" << c.m << " rank " << r;
  }
}

TEST(DualPipe, WeightsRunInTheOrderOfTheirInputs) {
  // DeepSeek's WeightGradStore is a FIFO: each W is the oldest I whose W has not run.
  std::vector<Schedule> schedules;
  for (const Grid& g : dualpipe_grid()) schedules.push_back(generate_dualpipe({g.p, g.m, 2}));
  for (const Grid& g : dualpipev_grid()) schedules.push_back(generate_dualpipev({g.p, g.m, 2}));
  for (const Schedule& s : schedules)
    for (int r = 0; r < s.ranks; ++r) {
      std::vector<std::pair<int, int>> inputs, weights;
      for (const Op& op : s.programs[r])
        for (int i = 0; i < op.size(); ++i) {
          if (op[i].kind == Kind::I) inputs.emplace_back(op[i].stage, op[i].microbatch);
          if (op[i].kind == Kind::W) weights.emplace_back(op[i].stage, op[i].microbatch);
        }
      EXPECT_EQ(weights, inputs) << s.name << " p=" << s.ranks << " m=" << s.microbatches << " rank " << r;
    }
}

TEST(DualPipe, TheReverseDirectionMirrorsTheForwardOne) {
  // Rank p − 1 − r runs rank r's program with each direction swapped for the other: forward stage s
  // (model stage s) for reverse stage p + s (the same model stage), micro-batch k for k ± m/2.
  for (const Grid& g : dualpipe_grid()) {
    const Schedule s = generate_dualpipe({g.p, g.m, 2});
    const auto mirror = [&](Action a) {
      const bool forward = a.stage < g.p;
      return Action{forward ? a.stage + g.p : a.stage - g.p, forward ? a.microbatch + g.m / 2 : a.microbatch - g.m / 2,
                    a.kind};
    };
    for (int r = 0; r < g.p; ++r) {
      std::vector<Op> mirrored;
      for (const Op& op : s.programs[r])
        mirrored.push_back(op.is_pair() ? Op(mirror(op[0]), mirror(op[1])) : Op(mirror(op[0])));
      EXPECT_EQ(mirrored, s.programs[g.p - 1 - r]) << "p=" << g.p << " m=" << g.m << " rank " << r;
    }
  }
}

TEST(DualPipe, ValidAndDeadlockFreeOverTheGrid) {
  for (const Grid& g : dualpipe_grid()) {
    const Schedule s = generate_dualpipe({g.p, g.m, 2});
    EXPECT_NO_THROW(validate(s)) << "p=" << g.p << " m=" << g.m;
    EXPECT_FALSE(find_deadlock(s).has_value()) << "p=" << g.p << " m=" << g.m;
  }
  for (const Grid& g : dualpipev_grid()) {
    const Schedule s = generate_dualpipev({g.p, g.m, 2});
    EXPECT_NO_THROW(validate(s)) << "p=" << g.p << " m=" << g.m;
    EXPECT_FALSE(find_deadlock(s).has_value()) << "p=" << g.p << " m=" << g.m;
  }
}

TEST(DualPipe, RejectsWhatDualPipePyAsserts) {
  EXPECT_EQ(error_of([] { generate_schedule("dualpipe", {3, 12, 0}); }),
            "--pp 3: dualpipe needs an even number of ranks");
  EXPECT_EQ(error_of([] { generate_schedule("dualpipe", {4, 9, 0}); }),
            "--microbatches 9: dualpipe needs an even number of micro-batches (half enter at each end)");
  EXPECT_EQ(error_of([] { generate_schedule("dualpipe", {4, 6, 0}); }),
            "--microbatches 6: dualpipe needs at least 2 × --pp (8) micro-batches");
  EXPECT_EQ(error_of([] { generate_schedule("dualpipe", {4, 8, 3}); }),
            "--chunks 3: dualpipe has 2 chunk(s) per rank");
  EXPECT_EQ(error_of([] { generate_schedule("dualpipev", {4, 7, 0}); }),
            "--microbatches 7: dualpipev needs at least 2 × --pp (8) micro-batches");
  EXPECT_EQ(error_of([] { generate_schedule("dualpipev", {1, 1, 0}); }),
            "--microbatches 1: dualpipev needs at least 2 × --pp (2) micro-batches");
}

// ---- Bubble --------------------------------------------------------------------------------------
//
// DeepSeek's table (DeepSeek-V3 report, Table 2; deepseek-ai/DualPipe README) gives a bubble in time,
// (PP/2 − 1)(F&B + B − 3W) with PP the number of pipeline stages, as it gives 1F1B's (PP − 1)(F + B):
// the time a device idles in one step. DualPipe's ranks compute different amounts when F&B < F + B
// (the ranks nearer the middle run more overlapped pairs), so the bubble is the largest idle time of
// any rank, makespan − min_r busy_r, on the rank that runs the most pairs. For DualPipe PP = p; for
// DualPipeV PP = 2p (its stages), as the README's table, "based on the same number of PP stages".

double largest_idle(const Timing& t) {
  double idle = 0;
  for (const RankTiming& r : t.ranks) idle = std::max(idle, r.idle);
  return idle;
}

double deepseek_bubble(int stages, const ActionTimes& t) { return (stages / 2.0 - 1) * (t.pair() + t.b - 3 * t.w); }

struct Case {
  Schedule schedule;
  int stages;
};

std::vector<Case> bubble_cases() {
  std::vector<Case> cases;
  for (const Grid& g : dualpipe_grid()) cases.push_back({generate_dualpipe({g.p, g.m, 2}), g.p});
  for (const Grid& g : dualpipev_grid()) cases.push_back({generate_dualpipev({g.p, g.m, 2}), 2 * g.p});
  return cases;
}

TEST(DualPipe, BubbleIsDeepSeeksFormulaWhenForwardEqualsInputBackward) {
  // Exact when F = B − W (the I and F waves move at one pace), W ≤ F (each W fits in a forward's slot)
  // and F&B ≥ B (a pair is no shorter than its backward). Binary fractions: sums are exact.
  // With F&B = F + B every rank idles exactly that long.
  int checked = 0;
  for (const Case& c : bubble_cases())
    for (double f : {0.5, 1.0, 1.5})
      for (double w : {0.0, 0.5, f}) {
        const double b = f + w;
        for (double fb : {b, b + f / 2, f + b}) {
          const ActionTimes times{f, b, w, fb};
          const Timing t = time_schedule(c.schedule, times);
          ASSERT_EQ(largest_idle(t), deepseek_bubble(c.stages, times))
              << c.schedule.name << " p=" << c.schedule.ranks << " m=" << c.schedule.microbatches << " F=" << f
              << " B=" << b << " W=" << w << " F&B=" << fb;
          if (fb == f + b) {
            for (const RankTiming& r : t.ranks) EXPECT_EQ(r.idle, deepseek_bubble(c.stages, times));
          }
          ++checked;
        }
      }
  EXPECT_GT(checked, 1000);
}

TEST(DualPipe, BubbleIsWithinHalfStagesMinusOneTimesFMinusIOtherwise) {
  // F ≠ I (still W ≤ min(F, I), max(F, B) ≤ F&B ≤ F + B): each of the PP/2 − 1 steps the formula
  // counts is off by the pace mismatch |F − I| at most, in either direction. Measured: the bound
  // |bubble − formula| ≤ (PP/2 − 1)|F − I| holds over the grid and is reached on both sides.
  double lowest = 0, highest = 0;
  for (const Case& c : bubble_cases())
    for (double f : {0.5, 1.0, 1.5, 2.0})
      for (double i : {0.5, 1.0, 1.5, 2.0}) {
        if (f == i) continue;
        for (double w : {0.0, 0.5, std::min(f, i)})
          for (double extra : {0.0, 0.5, 1.0}) {
            const double b = i + w, fb = std::min(std::max(f, b) + extra, f + b);
            const ActionTimes times{f, b, w, fb};
            const double deviation = largest_idle(time_schedule(c.schedule, times)) - deepseek_bubble(c.stages, times);
            const double bound = (c.stages / 2.0 - 1) * std::abs(f - i);
            ASSERT_LE(std::abs(deviation), bound)
                << c.schedule.name << " p=" << c.schedule.ranks << " m=" << c.schedule.microbatches << " F=" << f
                << " B=" << b << " W=" << w << " F&B=" << fb;
            if (bound > 0) {
              lowest = std::min(lowest, deviation / bound);
              highest = std::max(highest, deviation / bound);
            }
          }
      }
  EXPECT_EQ(lowest, -1);
  EXPECT_EQ(highest, 1);
}

TEST(DualPipe, FormulaIsNoBoundWhenWeightsOutlastForwards) {
  // W > F breaks the formula's accounting of the W's that fill the warmup and cooldown: p = 8,
  // m = 16, F = I = 0.5, W = 1 (B = 1.5), F&B = 2: the formula says 3 × 0.5 = 1.5, the ranks idle
  // up to twice that.
  const ActionTimes times{0.5, 1.5, 1.0, 2.0};
  const Timing t = time_schedule(generate_dualpipe({8, 16, 2}), times);
  EXPECT_EQ(deepseek_bubble(8, times), 1.5);
  EXPECT_EQ(largest_idle(t), 3);
}

// ---- Activations ---------------------------------------------------------------------------------

TEST(DualPipe, EveryRankHoldsPPPlusOneActivations) {
  // DeepSeek's "PP + 1" per device, in peak_activations' unit (one micro-batch on one virtual stage):
  // DualPipe's virtual stage is a model stage, PP = p; DualPipeV's is half of one, PP = 2p. Every rank
  // has run PP forwards when its first overlapped pair starts one more before freeing any.
  for (const Grid& g : dualpipe_grid()) {
    const auto peaks = peak_activations(generate_dualpipe({g.p, g.m, 2}));
    EXPECT_EQ(peaks, std::vector<int>(g.p, g.p + 1)) << "p=" << g.p << " m=" << g.m;
  }
  for (const Grid& g : dualpipev_grid()) {
    const auto peaks = peak_activations(generate_dualpipev({g.p, g.m, 2}));
    EXPECT_EQ(peaks, std::vector<int>(g.p, 2 * g.p + 1)) << "p=" << g.p << " m=" << g.m;
  }
}

}  // namespace
}  // namespace pipegrid
