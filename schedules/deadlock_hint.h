// The fix a deadlock's shape suggests. All three engines that find deadlocks (the checker, the
// contention-free comm engine and the SimGrid executor) describe each wait of their cycle by what the
// blocked rank needs from its peer; the shape of the cycle then names the classic mistake and its fix.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid {

/// What a blocked rank waits for from the next rank of the cycle.
enum class WaitKind : std::uint8_t {
  Compute,      // a result the peer has not computed (the checker's waits)
  PeerSend,     // the blocked rank receives; the peer has not posted the matching send
  PeerReceive,  // the blocked rank sends (rendezvous); the peer has not posted the matching receive
  Collective,   // the blocked rank is inside a collective the peer has not entered
};
std::string_view wait_kind_name(WaitKind kind);  // "compute", "send", "receive", "collective"

enum class DeadlockShape : std::uint8_t {
  ComputeOrder,      // ranks run micro-batches in orders their neighbours cannot meet
  SendSend,          // every rank of the cycle sends first and waits for a receive posted later
  RecvRecv,          // every rank of the cycle receives first and waits for a send posted later
  UnmatchedReceive,  // the waits end at a rank that finished: nothing will ever send what is awaited
  CollectiveOrder,   // ranks entered their collectives in different orders
  Mixed,             // none of the above
};
std::string_view deadlock_shape_name(DeadlockShape shape);  // "compute-order", "send-send", …

struct DeadlockHint {
  DeadlockShape shape = DeadlockShape::Mixed;
  std::string text;  // one or two sentences: the fix; the report prints it as "fix: <text>"
};

/// `waits[i]` is what the i-th rank of the cycle waits for; `open` says the waits end at a rank that
/// finished its step instead of closing a cycle.
DeadlockShape deadlock_shape(const std::vector<WaitKind>& waits, bool open);
DeadlockHint deadlock_hint(const std::vector<WaitKind>& waits, bool open);

}  // namespace pipegrid
