// The earliest start an analytic collective still to be accounted may have. The TP all-reduces of
// an op under --tp-comm analytic are accounted when the op's wait is over, as the interval [end −
// comm_seconds, end] the wait's end gives (SimGrid's clock decides it); the GPU holds the op's start
// meanwhile, a bound below that interval. The link-load fold (load_fold.h) keeps no piece it would
// need after the earliest hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace pipegrid::sim {

class AnalyticHolds {
 public:
  /// Holder `slot` (a GPU) will account pieces starting at or after `from`, until release(slot).
  void hold(std::size_t slot, double from) { set(slot, from); }
  void release(std::size_t slot) { set(slot, kNone); }
  /// The earliest held start; +inf when none is held.
  double earliest() const { return tree_.empty() ? kNone : tree_[1]; }

 private:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  // A min tree over the slots: leaves at [size_, 2 size_), each parent the smaller of its two.
  void set(std::size_t slot, double value) {
    if (slot >= size_) grow(slot + 1);
    std::size_t i = size_ + slot;
    tree_[i] = value;
    for (i /= 2; i >= 1; i /= 2) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  }
  void grow(std::size_t slots) {
    std::size_t size = std::max<std::size_t>(size_, 1);
    while (size < slots) size *= 2;
    std::vector<double> tree(2 * size, kNone);
    for (std::size_t s = 0; s < size_; ++s) tree[size + s] = tree_[size_ + s];
    for (std::size_t i = size - 1; i >= 1; --i) tree[i] = std::min(tree[2 * i], tree[2 * i + 1]);
    tree_ = std::move(tree);
    size_ = size;
  }
  std::size_t size_ = 0;
  std::vector<double> tree_;
};

}  // namespace pipegrid::sim
