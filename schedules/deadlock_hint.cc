#include "schedules/deadlock_hint.h"

#include <algorithm>

namespace pipegrid {

std::string_view wait_kind_name(WaitKind kind) {
  switch (kind) {
    case WaitKind::Compute: return "compute";
    case WaitKind::PeerSend: return "send";
    case WaitKind::PeerReceive: return "receive";
    case WaitKind::Collective: return "collective";
  }
  return "?";
}

std::string_view deadlock_shape_name(DeadlockShape shape) {
  switch (shape) {
    case DeadlockShape::ComputeOrder: return "compute-order";
    case DeadlockShape::SendSend: return "send-send";
    case DeadlockShape::RecvRecv: return "recv-recv";
    case DeadlockShape::UnmatchedReceive: return "unmatched-receive";
    case DeadlockShape::CollectiveOrder: return "collective-order";
    case DeadlockShape::Mixed: return "mixed";
  }
  return "?";
}

DeadlockShape deadlock_shape(const std::vector<WaitKind>& waits, bool open) {
  const auto all = [&](WaitKind kind) {
    return !waits.empty() && std::all_of(waits.begin(), waits.end(), [&](WaitKind w) { return w == kind; });
  };
  if (open) return DeadlockShape::UnmatchedReceive;
  if (std::any_of(waits.begin(), waits.end(), [](WaitKind w) { return w == WaitKind::Collective; }))
    return DeadlockShape::CollectiveOrder;
  if (all(WaitKind::Compute)) return DeadlockShape::ComputeOrder;
  if (all(WaitKind::PeerReceive)) return DeadlockShape::SendSend;
  if (all(WaitKind::PeerSend)) return DeadlockShape::RecvRecv;
  return DeadlockShape::Mixed;
}

DeadlockHint deadlock_hint(const std::vector<WaitKind>& waits, bool open) {
  const DeadlockShape shape = deadlock_shape(waits, open);
  switch (shape) {
    case DeadlockShape::ComputeOrder:
      return {shape,
              "each rank runs the micro-batches in an order its neighbours cannot meet; generate every rank's "
              "program from one schedule function so that the forwards and backwards line up"};
    case DeadlockShape::SendSend:
      return {shape,
              "both sides send first and a rendezvous send waits for a receive posted later; make sends "
              "asynchronous (--p2p async), post each send with the receive it meets in one batch "
              "(batch_isend_irecv: --comm-plan megatron), or have odd ranks receive first"};
    case DeadlockShape::RecvRecv:
      return {shape,
              "both sides receive first and each waits for a send its peer posts only after its own receive; "
              "post the send before the receive on one side, or both in one batch (batch_isend_irecv)"};
    case DeadlockShape::UnmatchedReceive:
      return {shape,
              "a rank waits for a message its peer never sends: the peer ended its step without the op; every "
              "rank must run the same micro-batches (the same m, every forward and backward)"};
    case DeadlockShape::CollectiveOrder:
      return {shape,
              "ranks entered their collectives in different orders; issue the step's collectives in one global "
              "order on every rank (Megatron's finalize_model_grads: the data-parallel reduction, then the "
              "embedding all-reduce)"};
    case DeadlockShape::Mixed: break;
  }
  return {shape, "the ranks of the cycle wait for one another; reorder the first wait's action or make its send "
                 "asynchronous"};
}

}  // namespace pipegrid
