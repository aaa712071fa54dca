// The folded link load (load_fold.h) against the unfolded functions of link_load.h over the whole
// piece list, on random sequences that keep the network's promise (no piece before a folded horizon):
// the same numbers, bit for bit, and a piece that breaks the promise is an internal error.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/network/load_fold.h"

namespace pipegrid::sim {
namespace {

// A link as the network drives it: an open piece at some rate since `since`, closed at rate changes;
// analytic pieces in the future; zero-length remainders; busy periods; folds at the network's bound.
struct RandomLink {
  std::mt19937_64 random;
  double width;
  LoadFold fold;
  std::vector<LoadPiece> pieces;                  // the unfolded truth
  std::vector<std::pair<double, double>> busy;    // every busy period, unmerged
  double now = 0, since = 0, rate = 0, busy_since = 0;
  bool busy_open = false;
  int folds = 0;
  std::size_t most_kept = 0;

  RandomLink(std::uint64_t seed, double w) : random(seed), width(w), fold(w, true) {}

  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(random); }
  // Times on a grid of quarters half the time: equal times, and window edges hit exactly.
  double step() { return random() % 2 ? 0.25 * static_cast<double>(random() % 3) : uniform(0, 0.7); }

  void add(LoadPiece piece) {
    add_load(pieces, piece);
    fold.add(piece);
  }

  void run(int events) {
    for (int e = 0; e < events; ++e) {
      now += step();
      switch (random() % 6) {
        case 0: case 1: case 2: {  // the rate changes (sometimes to the same value: a merge)
          if (rate > 0 && now > since) add({since, now, rate * (now - since)});
          const int choice = static_cast<int>(random() % 4);
          rate = choice == 0 ? 0 : choice == 1 ? rate : uniform(0.1, 5);
          since = now;
          if (rate > 0 && !busy_open) busy_open = true, busy_since = now;
          if (rate == 0 && busy_open && random() % 2) busy_open = false, record_busy(busy_since, now);
          break;
        }
        case 3: {  // an analytic piece from now or later
          const double start = now + (random() % 2 ? 0 : step());
          add({start, start + 0.05 + uniform(0, 3), uniform(0.1, 10)});
          break;
        }
        case 4: add({now, now, uniform(0, 0.01)}); break;  // a flow's last bytes, at its end
        default: {
          const double horizon = rate > 0 ? since : now;
          fold.fold(horizon, busy_open ? std::min(horizon, busy_since) : horizon);
          ++folds;
        }
      }
      most_kept = std::max(most_kept, fold.kept());
    }
    if (rate > 0 && now + 0.5 > since) add({since, now + 0.5, rate * (now + 0.5 - since)});
    if (busy_open) record_busy(busy_since, now + 0.5);
  }

  void record_busy(double start, double end) {
    busy.emplace_back(start, end);
    fold.add_busy(start, end);
  }
};

TEST(LoadFold, SameNumbersAsTheUnfoldedFunctions) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    for (double width : {0.25, 1.0, 0.37}) {
      RandomLink link(seed, width);
      link.run(static_cast<int>(50 + seed % 400));
      ASSERT_GT(link.folds, 0);
      const LoadFold::Views views = link.fold.views();
      const BusiestWindow truth = busiest_window(link.pieces, width);
      // Bit for bit: links.csv prints the shortest representation that reads back the same double.
      EXPECT_EQ(views.busiest.bytes, truth.bytes) << "seed " << seed << " width " << width;
      EXPECT_EQ(views.busiest.start, truth.start) << "seed " << seed << " width " << width;
      EXPECT_EQ(views.windows, bytes_per_window(link.pieces, width)) << "seed " << seed << " width " << width;
      std::vector<std::pair<double, double>> busy = link.busy;
      for (const LoadPiece& piece : link.pieces) busy.emplace_back(piece.start, piece.end);
      EXPECT_EQ(views.busy_time, covered_time(busy)) << "seed " << seed << " width " << width;
    }
  }
}

TEST(LoadFold, KeepsLittleOfALongRun) {
  // 20 000 events over a steady link folded at the bound: what it keeps stays within what the last
  // few windows need, not the ~10 000 pieces it was given.
  RandomLink link(7, 0.5);
  link.run(20000);
  EXPECT_GT(link.pieces.size(), 5000u);
  EXPECT_LT(link.most_kept, 400u);
  EXPECT_EQ(link.fold.views().busiest.bytes, busiest_window(link.pieces, 0.5).bytes);
}

TEST(LoadFold, APieceBeforeTheFoldedHorizonIsAnInternalError) {
  LoadFold fold(1, true);
  fold.add({0, 2, 2});
  fold.add({2, 3, 5});
  fold.fold(3, 2.5);
  EXPECT_THROW(fold.add({2.9, 4, 1}), std::logic_error);
  EXPECT_THROW(fold.add_busy(2.4, 4), std::logic_error);
  EXPECT_NO_THROW(fold.add({3, 4, 1}));
  EXPECT_NO_THROW(fold.add_busy(2.5, 4));
}

}  // namespace
}  // namespace pipegrid::sim
