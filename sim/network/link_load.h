// What a link carried over time, as pieces of constant rate, and the three views links.csv and
// links_timeline.csv give of it: the time it was busy, its bytes per fixed window, and its busiest
// window wherever that window starts. No SimGrid here: the network (network.h) records the pieces.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace pipegrid::sim {

/// `bytes` carried at a constant rate over [start, end] (end > start). Pieces may overlap: the link's
/// rate at a time is the sum of the pieces covering it.
struct LoadPiece {
  double start = 0;
  double end = 0;
  double bytes = 0;
};

/// Adds a piece to a link's load, merged into the last one when it continues it at the same rate
/// (a flow alone on a link is sampled at every event of the simulation: one piece, not thousands) or
/// spans the same interval.
void add_load(std::vector<LoadPiece>& load, LoadPiece piece);

/// The length of the union of intervals [start, end] (in any order, overlapping or not).
double covered_time(std::vector<std::pair<double, double>> intervals);

/// Bytes per window of a fixed grid: window k is [k·width, (k + 1)·width). Only windows with bytes,
/// in increasing k; a piece's bytes are spread over the windows it overlaps in proportion to overlap.
std::vector<std::pair<std::int64_t, double>> bytes_per_window(const std::vector<LoadPiece>& load, double width);

/// One piece's share of that grid: `add(k, bytes)` for each window k it overlaps, in increasing k.
/// A piece inside one window gives it all its bytes, not rate × length (bytes_per_window and the fold,
/// load_fold.h, both split with it, so their grids agree bit for bit).
template <class Add>
void split_over_windows(const LoadPiece& piece, double width, Add add) {
  const auto first = static_cast<std::int64_t>(std::floor(piece.start / width));
  const auto last = static_cast<std::int64_t>(std::floor(piece.end / width));
  const double rate = piece.bytes / (piece.end - piece.start);
  for (std::int64_t k = first; k <= last; ++k) {
    const double from = std::max(piece.start, static_cast<double>(k) * width);
    const double to = std::min(piece.end, static_cast<double>(k + 1) * width);
    if (to > from) add(k, first == last ? piece.bytes : rate * (to - from));
  }
}

/// A change of a link's rate: a piece starting (+rate, one more piece) or ending (−rate, one fewer).
struct RateChange {
  double time, rate;
  int pieces;
};

/// A link's cumulative bytes as a function of time, from its rate changes: breakpoints where the rate
/// changes, the rate after each (0 after the last) and the bytes carried before each. busiest_window
/// builds it at once and the fold (load_fold.h) piece by piece, with the same arithmetic in the same
/// order, so the two agree bit for bit.
struct CumulativeBytes {
  std::vector<double> at, rate, before;
  double current = 0, carried = 0;
  int open_pieces = 0;
  /// Makes breakpoints of the changes before `below`, in time order (a stable sort: equal times keep
  /// their order), and removes them from `changes`.
  void take(std::vector<RateChange>& changes, double below);
};

/// The busiest window of `width`, sliding: the most bytes carried in any [t, t + width), t ≥ 0 real,
/// and the earliest t that reaches it. Exact: with the rate piecewise constant, bytes in [t, t + width)
/// is piecewise linear in t, with its kinks where t or t + width crosses a change of rate, so its
/// maximum is at one of those t.
struct BusiestWindow {
  double bytes = 0;
  double start = 0;
};
BusiestWindow busiest_window(const std::vector<LoadPiece>& load, double width);

}  // namespace pipegrid::sim
