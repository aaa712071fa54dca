#include "sim/exec/network.h"

#include <algorithm>
#include <limits>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {
// SimGrid's completion signal cannot be disconnected from outside, so it is connected once per
// process and forwards to the Network alive at the time, if any (one engine per process, and the
// engine may cancel leftover activities after a deadlock, once the Network is gone).
Network* current_network = nullptr;
}  // namespace

Network::Network(std::vector<sg4::Host*> gpu_hosts) : hosts_(std::move(gpu_hosts)), routes_(hosts_.size()) {
  // Completions arrive in simulated-time order, which is what makes busy-time accounting a simple
  // counter per link. Every activity passes here; execs are not ours and are skipped by the lookup.
  static const bool connected = [] {
    sg4::Link::on_communication_state_change_cb(
        [](simgrid::kernel::resource::NetworkAction& action, simgrid::kernel::resource::Action::State) {
          // NetworkAction is only declared in SimGrid's public headers; it derives from Action alone
          // (src/kernel/resource/NetworkModel.hpp), so the two share an address. The link tests
          // would catch a SimGrid where that changed.
          const auto& generic = reinterpret_cast<const simgrid::kernel::resource::Action&>(action);
          const auto state = generic.get_state();
          if (current_network && (state == simgrid::kernel::resource::Action::State::FINISHED ||
                                  state == simgrid::kernel::resource::Action::State::FAILED))
            current_network->flow_ended(generic.get_activity(), generic.get_finish_time());
        });
    return true;
  }();
  (void)connected;
  current_network = this;
}

Network::~Network() {
  if (current_network == this) current_network = nullptr;
}

const Network::RouteEntry& Network::route_entry(int src_gpu, int dst_gpu) {
  auto& known = routes_[src_gpu];
  for (const auto& [dst, entry] : known)
    if (dst == dst_gpu) return *entry;
  known.emplace_back(dst_gpu, std::make_unique<RouteEntry>());
  RouteEntry& entry = *known.back().second;  // stays where it is if `known` grows meanwhile
  std::vector<sg4::Link*> links;
  hosts_[src_gpu]->route_to(hosts_[dst_gpu], links, &entry.latency);
  for (sg4::Link* link : links) {
    auto [index, is_new] = link_index_.try_emplace(link, static_cast<int>(links_.size()));
    if (is_new) links_.push_back(LinkUsage{link});
    // A route may cross one switch link twice (in and out): count it once.
    if (std::find(entry.links.begin(), entry.links.end(), index->second) == entry.links.end())
      entry.links.push_back(index->second);
  }
  return entry;
}

const std::vector<int>& Network::route(int src_gpu, int dst_gpu) { return route_entry(src_gpu, dst_gpu).links; }

std::pair<double, double> Network::bottleneck_and_latency(int src_gpu, int dst_gpu) {
  const RouteEntry& entry = route_entry(src_gpu, dst_gpu);
  double bandwidth = std::numeric_limits<double>::infinity();
  for (int link : entry.links) bandwidth = std::min(bandwidth, links_[link].link->get_bandwidth());
  return {bandwidth, entry.latency};
}

sg4::CommPtr Network::start_flow(const FlowInfo& flow) {
  const RouteEntry& entry = route_entry(flow.src_gpu, flow.dst_gpu);
  const double now = sg4::Engine::get_clock();
  for (int index : entry.links) {
    LinkUsage& usage = links_[index];
    if (usage.active_flows++ == 0) usage.busy_since = now;
    usage.bytes += flow.bytes;
    ++usage.flows;
  }
  // Registered before it starts: a flow of no bytes and no latency can complete inside start(), and
  // its completion must find it.
  sg4::CommPtr comm = sg4::Comm::sendto_init(hosts_[flow.src_gpu], hosts_[flow.dst_gpu]);
  comm->set_payload_size(static_cast<std::uint64_t>(flow.bytes));
  active_.emplace(comm->get_impl(), ActiveFlow{flow, &entry, now});
  comm->start();
  return comm;
}

void Network::flow_ended(const void* activity, double end) {
  const auto it = active_.find(activity);
  if (it == active_.end()) return;  // not a flow of ours
  for (int index : it->second.route->links) {
    LinkUsage& usage = links_[index];
    if (--usage.active_flows == 0) usage.busy_time += end - usage.busy_since;
  }
  const ActiveFlow flow = it->second;
  active_.erase(it);
  for (const FlowEnd& listener : listeners_) listener(flow.info, flow.start, end);
}

}  // namespace pipegrid::sim
