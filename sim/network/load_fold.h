// A link's load folded as the run goes: link_load.h's three views (busy time, bytes per window, busiest
// sliding window), exact — the unfolded functions' operations in their order — while keeping only the
// pieces and rate changes a window still open can need. Exact because each fold() promises that no later
// piece starts before its horizon (network.cc says why that holds): below it every rate change is known,
// and every window ending there is final.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/network/link_load.h"

namespace pipegrid::sim {

class LoadFold {
 public:
  /// Windows of `width` seconds (links.csv's busiest window, links_timeline.csv's grid); the grid's
  /// bytes are kept only with `timeline`.
  explicit LoadFold(double width = 1e-3, bool timeline = true) : width_(width), timeline_(timeline) {}

  /// add_load's piece (merged into the last one, or a zero-length one's bytes given to it).
  /// Throws std::logic_error (exit 70) when it starts before a horizon promised to fold().
  void add(LoadPiece piece);
  /// A period with at least one flow on the link. Throws std::logic_error when it starts before a
  /// busy horizon promised to fold().
  void add_busy(double start, double end);
  /// Folds what the horizons make final: no piece added from now on starts before `horizon`, no busy
  /// period before `busy_horizon` (≤ horizon).
  void fold(double horizon, double busy_horizon);
  /// Pieces not folded yet (the caller folds when there are many).
  std::size_t buffered() const { return pieces_.size(); }
  /// Everything it keeps, pieces, changes, breakpoints and busy components (without the timeline's grid).
  std::size_t kept() const { return pieces_.size() + changes_.size() + cumulative_.at.size() + components_.size(); }

  double width() const { return width_; }
  bool timeline() const { return timeline_; }
  /// The views over everything added, as covered_time, bytes_per_window and busiest_window give them.
  struct Views {
    double busy_time = 0;
    BusiestWindow busiest;
    std::vector<std::pair<std::int64_t, double>> windows;  // empty without `timeline`
  };
  Views views() const;

 private:
  // Folds the final pieces, and what lies below the horizons (everything: all of it, the last piece too).
  void fold_below(double horizon, double busy_horizon, bool everything);
  void add_window_bytes(const LoadPiece& piece);
  void add_covered(double start, double end);
  void sum_covered(double below, bool everything);
  void sweep_cumulative(double below);
  void sweep_windows(double below, bool everything);
  double at(std::size_t i) const { return cumulative_.at[i - base_]; }
  double carried_at(double t, std::size_t& next) const;

  double width_;
  bool timeline_;
  double promised_ = -1, promised_busy_ = -1;  // the latest horizons given to fold()

  std::vector<LoadPiece> pieces_;  // not folded; the last may still change
  std::vector<std::pair<std::int64_t, double>> windows_;  // the grid, by window, as bytes_per_window

  // Busy time: the union of the busy periods and folded pieces as far as known, its components in
  // order (disjoint, not touching), and the sum of the lengths of the components before them.
  std::vector<std::pair<double, double>> components_;
  double covered_ = 0;

  // The cumulative bytes (link_load.cc, Cumulative): rate changes of folded pieces not yet made
  // breakpoints, in piece order; the breakpoints still needed, from absolute index `base_`.
  std::vector<RateChange> changes_;
  CumulativeBytes cumulative_;
  std::size_t base_ = 0;

  // busiest_window's sweep: absolute indices of its candidates and of C(t)'s and C(t + width)'s
  // next breakpoints, and the best window so far.
  std::size_t early_ = 0, late_ = 0, start_next_ = 0, end_next_ = 0;
  bool found_ = false;
  BusiestWindow best_;
};

}  // namespace pipegrid::sim
