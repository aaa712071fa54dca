// How a pipeline transfer treats its two sides — one knob shared by the contention-free engine and
// the SimGrid executor (docs/design.md, "Fidelity knobs").
#pragma once

namespace pipegrid {

enum class P2pMode {
  Async,     // sends never block compute; a transfer delays only its receiver
  Blocking,  // rendezvous, one transfer at a time: a send holds the sender until the data is taken
  Batched,   // the sends after an op and the receives before the next are posted and waited together
};

inline const char* p2p_mode_name(P2pMode mode) {
  switch (mode) {
    case P2pMode::Async: return "async";
    case P2pMode::Blocking: return "blocking";
    case P2pMode::Batched: return "batched";
  }
  return "?";
}

}  // namespace pipegrid
