#include "schedules/wait_chain.h"

#include <algorithm>
#include <stdexcept>

namespace pipegrid {

WaitChain follow_waits(const std::map<int, WaitStep>& waits) {
  if (waits.empty()) throw std::logic_error("follow_waits: nobody is blocked");
  WaitChain chain;
  std::map<int, std::size_t> seen_at;
  int rank = waits.begin()->first;
  while (!seen_at.contains(rank)) {
    seen_at[rank] = chain.ranks.size();
    chain.ranks.push_back(rank);
    const WaitStep& step = waits.at(rank);
    if (step.never) {
      chain.open = true;
      return chain;
    }
    rank = step.awaited_rank;
    if (!waits.contains(rank)) throw std::logic_error("follow_waits: a rank waits for a rank that finished");
  }
  chain.ranks.erase(chain.ranks.begin(), chain.ranks.begin() + static_cast<std::ptrdiff_t>(seen_at[rank]));
  std::rotate(chain.ranks.begin(), std::min_element(chain.ranks.begin(), chain.ranks.end()), chain.ranks.end());
  return chain;
}

}  // namespace pipegrid
