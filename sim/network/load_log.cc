#include "sim/network/load_log.h"

#include <algorithm>

namespace pipegrid::sim {

void LoadLog::sort_by_link(std::size_t links) {
  // A counting sort: stable, and linear in the entries and links (a comparison sort of 128 K
  // entries costs more than the folds it saves).
  start_of_.assign(links + 1, 0);
  for (const Entry& entry : entries_) ++start_of_[static_cast<std::size_t>(entry.link) + 1];
  for (std::size_t link = 0; link < links; ++link) start_of_[link + 1] += start_of_[link];
  sorted_.resize(entries_.size());
  for (const Entry& entry : entries_) sorted_[start_of_[static_cast<std::size_t>(entry.link)]++] = entry;
}

}  // namespace pipegrid::sim
