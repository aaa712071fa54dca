#include "sim/network/load_fold.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace pipegrid::sim {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}  // namespace

void LoadFold::add(LoadPiece piece) {
  if (piece.bytes <= 0) return;
  if (piece.start < promised_)
    throw std::logic_error(fmt::format("link load: a piece starts at {} s, before the folded horizon {} s",
                                       piece.start, promised_));
  add_load(pieces_, piece);
}

void LoadFold::add_busy(double start, double end) {
  if (start < promised_busy_)
    throw std::logic_error(fmt::format("link load: a busy period starts at {} s, before the folded horizon {} s",
                                       start, promised_busy_));
  add_covered(start, end);
}

void LoadFold::fold(double horizon, double busy_horizon) {
  promised_ = std::max(promised_, horizon);
  promised_busy_ = std::max(promised_busy_, std::min(busy_horizon, horizon));
  fold_below(promised_, promised_busy_, false);
}

LoadFold::Views LoadFold::views() const {
  LoadFold all = *this;
  all.fold_below(kNever, kNever, true);
  Views views;
  // covered_time's last component is added as total + end − start, the others as total += end − start.
  views.busy_time = all.components_.empty()
                        ? all.covered_
                        : all.covered_ + all.components_.back().second - all.components_.back().first;
  views.busiest = all.best_;
  views.windows = std::move(all.windows_);
  return views;
}

void LoadFold::fold_below(double horizon, double busy_horizon, bool everything) {
  // Every piece but the last is final: its bytes go to the grid, its rate changes and interval wait
  // for the sweeps, in piece order (the order the unfolded functions take them in).
  const std::size_t final_pieces = everything ? pieces_.size() : pieces_.size() - std::min<std::size_t>(pieces_.size(), 1);
  for (std::size_t i = 0; i < final_pieces; ++i) {
    const LoadPiece& piece = pieces_[i];
    if (timeline_) add_window_bytes(piece);
    const double rate = piece.bytes / (piece.end - piece.start);
    changes_.push_back({piece.start, rate, 1});
    changes_.push_back({piece.end, -rate, -1});
    add_covered(piece.start, piece.end);
  }
  pieces_.erase(pieces_.begin(), pieces_.begin() + static_cast<std::ptrdiff_t>(final_pieces));
  const double below = pieces_.empty() ? horizon : std::min(horizon, pieces_.back().start);
  sum_covered(std::min(below, busy_horizon), everything);
  sweep_cumulative(below);
  sweep_windows(below, everything);
}

void LoadFold::add_window_bytes(const LoadPiece& piece) {
  // bytes_per_window's split, window by window in piece order.
  split_over_windows(piece, width_, [&](std::int64_t k, double bytes) {
    // Pieces mostly come in time order: the window is the last one, or new after it.
    if (!windows_.empty() && windows_.back().first == k) {
      windows_.back().second += bytes;
    } else if (windows_.empty() || windows_.back().first < k) {
      windows_.emplace_back(k, bytes);
    } else {
      const auto it = std::lower_bound(windows_.begin(), windows_.end(), k,
                                       [](const auto& window, std::int64_t key) { return window.first < key; });
      if (it != windows_.end() && it->first == k)
        it->second += bytes;
      else
        windows_.insert(it, {k, bytes});
    }
  });
}

void LoadFold::add_covered(double start, double end) {
  // The components [lo, hi) touch [start, end] (covered_time merges an interval that starts at or
  // before the open one's end): they become one.
  const auto lo = std::lower_bound(components_.begin(), components_.end(), start,
                                   [](const auto& c, double s) { return c.second < s; });
  auto hi = lo;
  while (hi != components_.end() && hi->first <= end) ++hi;
  if (lo == hi) {
    components_.insert(lo, {start, end});
    return;
  }
  const std::pair<double, double> merged{std::min(start, lo->first), std::max(end, (hi - 1)->second)};
  *lo = merged;
  components_.erase(lo + 1, hi);
}

void LoadFold::sum_covered(double below, bool everything) {
  // A component that ends before `below` is final (no interval to come can touch it); the last one
  // stays, as covered_time adds the last component differently (views).
  std::size_t done = 0;
  const std::size_t summable = components_.empty() ? 0 : components_.size() - 1;
  while (done < summable && (everything || components_[done].second < below)) {
    covered_ += components_[done].second - components_[done].first;
    ++done;
  }
  components_.erase(components_.begin(), components_.begin() + static_cast<std::ptrdiff_t>(done));
}

void LoadFold::sweep_cumulative(double below) {
  // All the changes before `below` are known: they become breakpoints as busiest_window makes them.
  cumulative_.take(changes_, below);
}

double LoadFold::carried_at(double t, std::size_t& next) const {
  const std::size_t n = base_ + cumulative_.at.size();
  while (next < n && at(next) <= t) ++next;
  if (next == 0) return 0;
  return cumulative_.before[next - 1 - base_] + cumulative_.rate[next - 1 - base_] * (t - at(next - 1));
}

void LoadFold::sweep_windows(double below, bool everything) {
  // busiest_window's sweep, as far as the candidates t with t + width < below: later breakpoints are
  // at or after `below`, so later candidates are at or after max(0, below − width), and C(t), C(t +
  // width) are final.
  const std::size_t n = base_ + cumulative_.at.size();
  const double last_start = std::max(0.0, below - width_);
  while (early_ < n || late_ < n) {
    const double from_end = early_ < n ? std::max(0.0, at(early_) - width_) : 0;
    const bool take_end = early_ < n && (late_ == n || from_end <= at(late_));
    const double t = take_end ? from_end : at(late_);
    if (!everything && !(t < last_start && t + width_ < below)) break;
    (take_end ? early_ : late_) += 1;
    const double bytes = carried_at(t + width_, end_next_) - carried_at(t, start_next_);
    if (!found_ || bytes > best_.bytes) {
      best_ = {bytes, t};
      found_ = true;
    }
  }
  // Breakpoints before every index the sweep still reads (carried_at reads next − 1; the last one
  // carries the cumulative on) are dropped, in batches.
  std::size_t needed = std::min({early_, late_, start_next_ > 0 ? start_next_ - 1 : 0, end_next_ > 0 ? end_next_ - 1 : 0,
                                 n > 0 ? n - 1 : 0});
  const std::size_t drop = needed - std::min(needed, base_);
  if (drop > 64 && 2 * drop > cumulative_.at.size()) {
    cumulative_.at.erase(cumulative_.at.begin(), cumulative_.at.begin() + static_cast<std::ptrdiff_t>(drop));
    cumulative_.rate.erase(cumulative_.rate.begin(), cumulative_.rate.begin() + static_cast<std::ptrdiff_t>(drop));
    cumulative_.before.erase(cumulative_.before.begin(), cumulative_.before.begin() + static_cast<std::ptrdiff_t>(drop));
    base_ += drop;
  }
}

}  // namespace pipegrid::sim
