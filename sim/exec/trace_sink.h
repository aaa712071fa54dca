// What the executor hands on as the run goes: each interval of a GPU's timeline as it ends. The output
// stage's trace writer (sim/output/trace_writer.h) is one sink; a run with no trace has none.
#pragma once

#include <string_view>

namespace pipegrid::sim {

enum class Track { Compute, Comm };

/// One interval of a GPU's timeline: a computation, a transfer (on the sender's row, the receiver as
/// peer) or its part of a collective.
struct TraceEvent {
  int gpu = 0;
  Track track = Track::Compute;
  std::string_view kind;  // F, B, I, W, an overlapped pair's halves, p2p, tp-allreduce, dp-allreduce, …
  int stage = -1;         // the action's stage, or the transferred result's
  int microbatch = -1;
  char action = 0;        // for p2p: the action that produced the result (F, B or I)
  int peer = -1;          // for p2p: the receiving GPU
  double bytes = 0;
  double start = 0;
  double end = 0;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(const TraceEvent& event) = 0;
};

}  // namespace pipegrid::sim
