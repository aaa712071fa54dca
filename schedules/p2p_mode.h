// How a pipeline transfer treats its two sides — one knob with one meaning in the contention-free
// engines and the SimGrid executor (docs/design.md, "Comm plans and p2p semantics").
#pragma once

#include "common/named.h"

namespace pipegrid {

enum class P2pMode {
  Async,       // a send completes when posted (NCCL's eager buffers): it never blocks its rank
  Rendezvous,  // a message's flow starts when both sides have posted; the send completes when it ends
};

/// --p2p's names: blocking is rendezvous's older name.
inline constexpr Named<P2pMode> kP2pModes[] = {
    {"async", P2pMode::Async}, {"rendezvous", P2pMode::Rendezvous}, {"blocking", P2pMode::Rendezvous}};

inline const char* p2p_mode_name(P2pMode mode) { return mode == P2pMode::Async ? "async" : "rendezvous"; }

}  // namespace pipegrid
