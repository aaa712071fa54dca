#include "sim/exec/transfers.h"

#include <stdexcept>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

Transfers::Transfers(Network& network, int gpus) : network_(network), waiters_(gpus) {}

void Transfers::start(const MessageKey& key) {
  Entry& entry = entries_.at(key);
  entry.starting = true;
  const FlowInfo flow = entry.flow;
  sg4::CommPtr comm = network_.start_flow(flow);
  entries_.at(key).comm = std::move(comm);
  for (int gpu : {flow.src_gpu, flow.dst_gpu}) {
    Waiter& waiter = waiters_[gpu];
    if (waiter.actor && waiter.blocked.blocked && waiter.key == key) {
      waiter.actor->resume();
    }
  }
}

void Transfers::post_send(const MessageKey& key, const FlowInfo& flow, bool eager) {
  Entry& entry = entries_[key];
  if (entry.sent) throw std::logic_error("Transfers: a message was sent twice");
  entry.flow = flow;
  entry.sent = true;
  entry.eager = eager;
  entry.waits_left += eager ? 0 : 1;
  if (eager || entry.received) start(key);
}

void Transfers::post_receive(const MessageKey& key, const FlowInfo& expected) {
  Entry& entry = entries_[key];
  if (entry.received) throw std::logic_error("Transfers: a message was received twice");
  if (!entry.sent) entry.flow = expected;
  entry.received = true;
  entry.waits_left += 1;
  if (entry.sent && !entry.starting) start(key);
}

FlowSpan Transfers::wait(const MessageKey& key, bool as_sender) {
  auto it = entries_.find(key);
  if (it == entries_.end()) throw std::logic_error("Transfers: waiting on a message nobody posted");
  if (!it->second.comm) {
    const FlowInfo& flow = it->second.flow;
    const int gpu = as_sender ? flow.src_gpu : flow.dst_gpu;
    Waiter& waiter = waiters_[gpu];
    waiter.blocked = {true, as_sender, as_sender ? flow.dst_gpu : flow.src_gpu, flow};
    waiter.key = key;
    waiter.actor = sg4::Actor::self();
    // Whoever starts the flow resumes us. Checking again after each wake-up keeps this right even if
    // something else resumed the actor.
    while (!(it = entries_.find(key))->second.comm) sg4::this_actor::suspend();
    waiter.blocked = {};
    waiter.actor = nullptr;
  }
  sg4::CommPtr comm = it->second.comm;
  // A flow that already ended needs no wait (and no simcall): its completion has been accounted.
  comm->wait();
  const FlowSpan span{comm->get_start_time(), comm->get_finish_time()};
  it = entries_.find(key);
  if (--it->second.waits_left <= 0) entries_.erase(it);
  return span;
}

}  // namespace pipegrid::sim
