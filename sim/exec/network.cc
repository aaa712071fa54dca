#include "sim/exec/network.h"

#include <algorithm>
#include <limits>
#include <simgrid/s4u/Engine.hpp>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {
// SimGrid's completion signal cannot be disconnected from outside, so it is connected once per
// process and forwards to the Network alive at the time, if any (one engine per process, and the
// engine may cancel leftover activities after a deadlock, once the Network is gone).
Network* current_network = nullptr;
}  // namespace

Network::Network(std::vector<sg4::Host*> gpu_hosts, FlowEnd on_flow_end)
    : hosts_(std::move(gpu_hosts)), on_flow_end_(std::move(on_flow_end)) {
  // Completions arrive in simulated-time order, which is what makes busy-time accounting a simple
  // counter per link. Every activity passes here; execs are not ours and are skipped by the lookup.
  static const bool connected = [] {
    sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
      if (current_network) current_network->flow_ended(activity);
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
  const std::uint64_t key = (static_cast<std::uint64_t>(src_gpu) << 32) | static_cast<std::uint32_t>(dst_gpu);
  auto [it, inserted] = routes_.try_emplace(key);
  RouteEntry& entry = it->second;  // stays valid if the table grows; the iterator might not
  if (inserted) {
    std::vector<sg4::Link*> links;
    hosts_[src_gpu]->route_to(hosts_[dst_gpu], links, &entry.latency);
    for (sg4::Link* link : links) {
      auto [index, is_new] = link_index_.try_emplace(link, static_cast<int>(links_.size()));
      if (is_new) links_.push_back(LinkUsage{link});
      // A route may cross one FATPIPE crossbar twice (in and out of a switch): count it once.
      if (std::find(entry.links.begin(), entry.links.end(), index->second) == entry.links.end())
        entry.links.push_back(index->second);
    }
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
  active_.emplace(comm.get(), ActiveFlow{flow, &entry, now});
  comm->start();
  return comm;
}

void Network::flow_ended(const sg4::Activity& activity) {
  const auto it = active_.find(&activity);
  if (it == active_.end()) return;
  const double now = sg4::Engine::get_clock();
  for (int index : it->second.route->links) {
    LinkUsage& usage = links_[index];
    if (--usage.active_flows == 0) usage.busy_time += now - usage.busy_since;
  }
  const ActiveFlow flow = it->second;
  active_.erase(it);
  if (on_flow_end_) on_flow_end_(flow.info, flow.start, now);
}

}  // namespace pipegrid::sim
