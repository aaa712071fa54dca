// How a pipeline transfer treats its two sides — one knob with one meaning in the contention-free
// engines and the SimGrid executor (docs/design.md, "Comm plans and p2p semantics").
#pragma once

namespace pipegrid {

enum class P2pMode {
  Async,       // a send completes when posted (NCCL's eager buffers): it never blocks its rank
  Rendezvous,  // a message's flow starts when both sides have posted; the send completes when it ends
};

inline const char* p2p_mode_name(P2pMode mode) { return mode == P2pMode::Async ? "async" : "rendezvous"; }

}  // namespace pipegrid
