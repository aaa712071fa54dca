// What the links' loads are told during a run — pieces and busy periods — kept in the order they
// happen and handed over link by link in batches. A large run adds millions of pieces to thousands of
// links' folds (load_fold.h), nearly every one to a link whose fold was evicted from the cache since
// its last piece: a batch touches each link's fold once, with its pieces in a row. Each link gets its
// own pieces and periods in the order they were logged, which is all its fold's result depends on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/network/link_load.h"

namespace pipegrid::sim {

class LoadLog {
 public:
  struct Entry {
    int link;
    bool busy;  // a busy period [piece.start, piece.end]; else a load piece
    LoadPiece piece;
  };
  void piece(int link, LoadPiece piece) { entries_.push_back({link, false, piece}); }
  void busy(int link, double start, double end) { entries_.push_back({link, true, {start, end, 0}}); }
  /// Time for a batch: the log holds a few MB.
  bool full() const { return entries_.size() >= kBatch; }
  bool empty() const { return entries_.empty(); }
  /// Calls `apply(link, first, last)` for each link with entries, in increasing link order, with its
  /// entries [first, last) in the order logged; then empties the log.
  template <typename Apply>
  void drain(std::size_t links, Apply&& apply);

 private:
  static constexpr std::size_t kBatch = std::size_t{1} << 17;
  void sort_by_link(std::size_t links);  // sorted_, stably by link
  std::vector<Entry> entries_, sorted_;
  std::vector<std::uint32_t> start_of_;  // per link: its first entry in sorted_, then one past its last
};

template <typename Apply>
void LoadLog::drain(std::size_t links, Apply&& apply) {
  if (entries_.empty()) return;
  sort_by_link(links);
  for (std::size_t first = 0; first < sorted_.size();) {
    std::size_t last = first + 1;
    while (last < sorted_.size() && sorted_[last].link == sorted_[first].link) ++last;
    apply(sorted_[first].link, sorted_.data() + first, sorted_.data() + last);
    first = last;
  }
  entries_.clear();
  sorted_.clear();
}

}  // namespace pipegrid::sim
