#include "sim/network/link_load.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace pipegrid::sim {

void add_load(std::vector<LoadPiece>& load, LoadPiece piece) {
  if (piece.bytes <= 0) return;
  if (!load.empty()) {
    LoadPiece& last = load.back();
    // A flow's last bytes counted at its end (what the sampling left, rounding's worth): the piece
    // that ends there takes them.
    if (piece.end <= piece.start) {
      last.bytes += piece.bytes;
      return;
    }
    // Over the same interval (an analytic ring's hops through one switch link, member after member):
    // one piece at the sum of their rates, which is the link's rate there either way. Most of the
    // analytic TP all-reduces' pieces are such: a node's 8 hops cross its NVSwitch link.
    if (last.start == piece.start && last.end == piece.end) {
      last.bytes += piece.bytes;
      return;
    }
    const double last_rate = last.bytes / (last.end - last.start), rate = piece.bytes / (piece.end - piece.start);
    if (last.end == piece.start && std::abs(rate - last_rate) <= 1e-12 * std::max(rate, last_rate)) {
      last.end = piece.end;
      last.bytes += piece.bytes;
      return;
    }
  }
  if (piece.end > piece.start) load.push_back(piece);
}

double covered_time(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, open_start = 0, open_end = 0;
  bool open = false;
  for (const auto& [start, end] : intervals) {
    if (open && start <= open_end) {
      open_end = std::max(open_end, end);
      continue;
    }
    if (open) total += open_end - open_start;
    open = true;
    open_start = start;
    open_end = end;
  }
  return open ? total + open_end - open_start : total;
}

std::vector<std::pair<std::int64_t, double>> bytes_per_window(const std::vector<LoadPiece>& load, double width) {
  std::map<std::int64_t, double> windows;
  for (const LoadPiece& piece : load)
    split_over_windows(piece, width, [&](std::int64_t k, double bytes) { windows[k] += bytes; });
  return {windows.begin(), windows.end()};
}

void CumulativeBytes::take(std::vector<RateChange>& changes, double below) {
  // Stable either way, so the order is the same. The fold hands over a few hundred changes at a
  // time, nearly in order, and std::stable_sort's buffer was a malloc per call, which with its page
  // faults showed in perf's profile of a large run: an insertion sort moves each change past its few
  // inversions only.
  const auto earlier = [](const RateChange& a, const RateChange& b) { return a.time < b.time; };
  if (changes.size() > 1024) {
    std::stable_sort(changes.begin(), changes.end(), earlier);
  } else {
    for (std::size_t k = 1; k < changes.size(); ++k) {
      const RateChange change = changes[k];
      std::size_t j = k;
      for (; j > 0 && earlier(change, changes[j - 1]); --j) changes[j] = changes[j - 1];
      changes[j] = change;
    }
  }
  std::size_t i = 0;
  while (i < changes.size() && changes[i].time < below) {
    const double time = changes[i].time;
    if (!at.empty()) carried += rate.back() * (time - at.back());
    for (; i < changes.size() && changes[i].time == time; ++i) {
      current += changes[i].rate;
      open_pieces += changes[i].pieces;
    }
    // With no piece left the rate is 0, whatever the sum of the rates' roundings says.
    if (open_pieces == 0) current = 0;
    at.push_back(time);
    rate.push_back(std::max(current, 0.0));
    before.push_back(carried);
  }
  changes.erase(changes.begin(), changes.begin() + static_cast<std::ptrdiff_t>(i));
}

namespace {

// The link's cumulative bytes, all its changes made breakpoints.
struct Cumulative : CumulativeBytes {
  explicit Cumulative(const std::vector<LoadPiece>& load) {
    std::vector<RateChange> changes;
    for (const LoadPiece& piece : load) {
      const double piece_rate = piece.bytes / (piece.end - piece.start);
      changes.push_back({piece.start, piece_rate, 1});
      changes.push_back({piece.end, -piece_rate, -1});
    }
    take(changes, std::numeric_limits<double>::infinity());
  }

  // C(t), for t visited in increasing order: `next` is the first breakpoint after the last t asked.
  double at_time(double t, std::size_t& next) const {
    while (next < at.size() && at[next] <= t) ++next;
    if (next == 0) return 0;
    return before[next - 1] + rate[next - 1] * (t - at[next - 1]);
  }
};

}  // namespace

BusiestWindow busiest_window(const std::vector<LoadPiece>& load, double width) {
  const Cumulative carried(load);
  BusiestWindow best;
  // The candidate starts in increasing order: the breakpoints minus the width, merged with the
  // breakpoints themselves. Pieces start at t ≥ 0, the simulation's start: no window that starts
  // earlier carries more than the one that starts at 0. Both ends of the window only move forward,
  // so one sweep evaluates C(t) and C(t + width) for all of them.
  const std::size_t n = carried.at.size();
  std::size_t early = 0, late = 0, start_next = 0, end_next = 0;
  bool found = false;
  while (early < n || late < n) {
    const double from_end = early < n ? std::max(0.0, carried.at[early] - width) : 0;
    const bool take_end = early < n && (late == n || from_end <= carried.at[late]);
    const double t = take_end ? from_end : carried.at[late];
    (take_end ? early : late) += 1;
    const double bytes = carried.at_time(t + width, end_next) - carried.at_time(t, start_next);
    if (!found || bytes > best.bytes) {
      best = {bytes, t};
      found = true;
    }
  }
  return best;
}

}  // namespace pipegrid::sim
