#include "sim/network/transfers.h"

#include <algorithm>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

#include "sim/network/kill_safe_wait.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

Transfers::Transfers(Network& network, int gpus) : network_(network), waiters_(gpus, std::deque<Waiter>(1)) {
  network_.on_flow_end([this](const FlowInfo& flow, double start, double end) { flow_ended(flow, start, end); });
}

void Transfers::start(Entry& entry, double latency_fraction) {
  const MessageKey key{entry.flow.dst_gpu, entry.flow.tag};
  entry.starting = true;
  const FlowInfo flow = entry.flow;
  network_.start_flow(flow, latency_fraction);
  entry.started = true;
  // A side waiting for its peer now waits for the network only.
  for (int gpu : {flow.src_gpu, flow.dst_gpu})
    for (Waiter& waiter : waiters_[gpu])
      if (waiter.actor && waiter.key == key) waiter.blocked.blocked = false;
}

void Transfers::flow_ended(const FlowInfo& flow, double start, double end) {
  const MessageKey key{flow.dst_gpu, flow.tag};
  const auto it = entries_.find(key);
  if (it == entries_.end()) return;  // not one of ours
  it->second.done = true;
  it->second.span = {start, end};
  if (const std::int64_t channel = it->second.channel; channel >= 0) {
    channels_[static_cast<std::size_t>(channel)].busy = false;
    advance(channel);  // may start a flow; `it` is not used below
  }
  for (int gpu : {flow.src_gpu, flow.dst_gpu})
    for (Waiter& waiter : waiters_[gpu]) {
      if (!waiter.actor || !(waiter.key == key)) continue;
      if (waiter.pending) {  // one of a wait_all: this GPU waits no more; the last one wakes the actor
        const simgrid::s4u::ActorPtr actor = std::move(waiter.actor);
        waiter.blocked = {};
        waiter.actor = nullptr;
        if (--*std::exchange(waiter.pending, nullptr) == 0) actor->resume();
      } else if (waiter.on_condition)
        waiter.ended->notify_all();
      else
        waiter.actor->resume();
    }
}

void Transfers::resend(const FlowInfo& flow) {
  const MessageKey key{flow.dst_gpu, flow.tag};
  if (const auto it = entries_.find(key); it != entries_.end() && !it->second.done) start(it->second);
}

void Transfers::post_send(const MessageKey& key, const FlowInfo& flow, bool eager, bool sender_waits,
                          std::int64_t channel) {
  Entry& entry = entries_[key];
  if (entry.sent) throw std::logic_error("Transfers: a message was sent twice");
  entry.flow = flow;
  entry.flow.tag = key.tag;
  entry.sent = true;
  entry.sent_at = sg4::Engine::get_clock();
  entry.eager = eager;
  entry.waits_left += eager && !sender_waits ? 0 : 1;
  entry.channel = channel;
  if (channel >= 0) {
    channels_.at(static_cast<std::size_t>(channel)).queue.push_back(&entry);
    advance(channel);
  } else if (eager || entry.received) {
    start(entry);
  }
}

void Transfers::advance(std::int64_t channel) {
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  if (c.busy || c.next == c.queue.size()) return;
  Entry& entry = *c.queue[c.next];
  if (!ready(entry)) return;
  ++c.next;
  c.busy = true;
  const double now = sg4::Engine::get_clock();
  const double ready_at = entry.eager ? entry.sent_at : std::max(entry.sent_at, entry.received_at);
  if (c.latency < 0) c.latency = network_.routes().effective_latency(entry.flow.src_gpu, entry.flow.dst_gpu);
  const double latency = c.latency;
  const double fraction = latency > 0 ? std::clamp((ready_at + latency - now) / latency, 0.0, 1.0) : 1.0;
  if (c.next == c.queue.size()) {  // nothing queued behind: forget what the channel has carried
    c.queue.clear();
    c.next = 0;
  }
  start(entry, fraction);
}

void Transfers::post_receive(const MessageKey& key, const FlowInfo& expected) {
  Entry& entry = entries_[key];
  if (entry.received) throw std::logic_error("Transfers: a message was received twice");
  if (!entry.sent) {
    entry.flow = expected;
    entry.flow.tag = key.tag;
  }
  entry.received = true;
  entry.received_at = sg4::Engine::get_clock();
  if (entry.channel >= 0)
    advance(entry.channel);
  else if (entry.sent && !entry.starting)
    start(entry);
}

std::int64_t Transfers::open_channels(int count) {
  const auto first = static_cast<std::int64_t>(channels_.size());
  channels_.resize(channels_.size() + static_cast<std::size_t>(count));
  return first;
}

void Transfers::register_comm_stream(int gpu) {
  waiters_[gpu].emplace_back();
  lane_of_actor_[sg4::this_actor::get_pid()] = {gpu, waiters_[gpu].size() - 1};
}

Transfers::Waiter& Transfers::waiter_of(int gpu) {
  const auto it = lane_of_actor_.find(sg4::this_actor::get_pid());
  const std::size_t lane = it != lane_of_actor_.end() && it->second.first == gpu ? it->second.second : 0;
  return waiters_[gpu][lane];
}

const BlockedOn& Transfers::blocked_on(int gpu) const {
  for (const Waiter& waiter : waiters_[gpu])
    if (waiter.blocked.blocked || waiter.actor) return waiter.blocked;
  return waiters_[gpu].front().blocked;
}

FlowSpan Transfers::wait(const MessageKey& key, bool as_sender, bool keep_activities_running) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) throw std::logic_error("Transfers: waiting on a message nobody posted");
  // Held across the wait (start's comment says why that is safe); an iterator would not survive
  // the table's growth.
  Entry& entry = it->second;
  if (!entry.done) {
    const FlowInfo flow = entry.flow;
    Waiter& waiter = waiter_of(as_sender ? flow.src_gpu : flow.dst_gpu);
    waiter.blocked = {!entry.started, as_sender, as_sender ? flow.dst_gpu : flow.src_gpu, flow};
    waiter.key = key;
    waiter.actor = sg4::Actor::self();
    waiter.on_condition = keep_activities_running;
    // The flow's end wakes us. Checking again after each wake-up keeps this right even if something
    // else resumed the actor.
    if (keep_activities_running) {
      if (!waiter.mutex) {
        waiter.mutex = sg4::Mutex::create();
        waiter.ended = sg4::ConditionVariable::create();
      }
      std::unique_lock lock(*waiter.mutex);
      wait_until(*waiter.ended, lock, [&] { return entry.done; });
    } else {
      while (!entry.done) sg4::this_actor::suspend();
    }
    waiter.blocked = {};
    waiter.actor = nullptr;
    waiter.on_condition = false;
  }
  const FlowSpan span = entry.span;
  if (--entry.waits_left <= 0) entries_.erase(key);
  return span;
}

std::vector<FlowSpan> Transfers::wait_all(const std::vector<std::pair<MessageKey, bool>>& waits) {
  std::vector<FlowSpan> spans;
  wait_all(waits, spans);
  return spans;
}

void Transfers::wait_all(const std::vector<std::pair<MessageKey, bool>>& waits, std::vector<FlowSpan>& spans) {
  spans.clear();
  if (waits.size() == 1) {
    spans.push_back(wait(waits.front().first, waits.front().second));
    return;
  }
  const auto pending = std::make_shared<int>(0);
  for (const auto& [key, as_sender] : waits) {
    const auto it = entries_.find(key);
    if (it == entries_.end()) throw std::logic_error("Transfers: waiting on a message nobody posted");
    if (it->second.done) continue;
    const FlowInfo& flow = it->second.flow;
    Waiter& waiter = waiter_of(as_sender ? flow.src_gpu : flow.dst_gpu);
    if (waiter.actor) throw std::logic_error("Transfers: wait_all for two messages of one GPU");
    waiter.blocked = {!it->second.started, as_sender, as_sender ? flow.dst_gpu : flow.src_gpu, flow};
    waiter.key = key;
    waiter.actor = sg4::Actor::self();
    waiter.pending = pending;
    ++*pending;
  }
  // Each flow's end clears its waiter; the last one resumes us.
  while (*pending > 0) sg4::this_actor::suspend();
  for (const auto& [key, as_sender] : waits) {
    const auto it = entries_.find(key);
    spans.push_back(it->second.span);
    if (--it->second.waits_left <= 0) entries_.erase(it);
  }
}

}  // namespace pipegrid::sim
