#include "sim/exec/collective_book.h"

#include <algorithm>

namespace pipegrid::sim {

void CollectiveBook::enter(int gpu, const OpenCollective& collective) {
  entered_[gpu].insert(collective.id);
  open_[gpu].push_back(collective);
}

void CollectiveBook::leave(int gpu, std::uint64_t id) {
  std::erase_if(open_[gpu], [&](const OpenCollective& c) { return c.id == id; });
}

std::vector<int> CollectiveBook::missing(const OpenCollective& collective) const {
  std::vector<int> absent;
  const int n = static_cast<int>(collective.group.size());
  for (int k = 1; k < n; ++k) {
    const int gpu = collective.group[(collective.member + k) % n];
    if (!entered(gpu, collective.id)) absent.push_back(gpu);
  }
  return absent;
}

}  // namespace pipegrid::sim
