// Which GPUs have entered which gradient collective: what a deadlock report needs to say that a GPU
// inside a collective waits for the members that never entered it (blocked elsewhere, e.g. in another
// collective they issued first) rather than for one piece of a ring.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace pipegrid::sim {

/// A collective a GPU has entered and not yet left.
struct OpenCollective {
  std::uint64_t id;       // the same on every member (the collective's tag context)
  std::string_view kind;  // as the trace names it: dp-allreduce, embedding-allreduce, …
  std::vector<int> group;  // GPUs in ring order
  int member = 0;          // the GPU's index in `group`
};

class CollectiveBook {
 public:
  explicit CollectiveBook(int gpus) : entered_(gpus), open_(gpus) {}

  void enter(int gpu, const OpenCollective& collective);
  void leave(int gpu, std::uint64_t id);
  bool entered(int gpu, std::uint64_t id) const { return entered_[gpu].contains(id); }
  /// The GPU's open collectives, in the order it entered them.
  const std::vector<OpenCollective>& open(int gpu) const { return open_[gpu]; }
  /// The members of `collective` that have not entered it, in ring order from the GPU's successor.
  std::vector<int> missing(const OpenCollective& collective) const;

 private:
  std::vector<std::unordered_set<std::uint64_t>> entered_;  // ever entered, per GPU
  std::vector<std::vector<OpenCollective>> open_;
};

}  // namespace pipegrid::sim
