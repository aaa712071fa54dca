// Flows over the platform: starts them, remembers their routes, and accounts what every link
// carried and for how long it was busy, in simulated-time order.
#pragma once

#include <cstdint>
#include <functional>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace pipegrid::sim {

/// What a flow carries, for traces and link accounting.
enum class FlowKind : std::uint8_t { PipelineP2p, TensorAllReduce, DataAllReduce, EmbeddingAllReduce };

struct FlowInfo {
  FlowKind kind;
  int src_gpu;
  int dst_gpu;
  double bytes;
  int stage = -1;       // pipeline p2p: the result's stage and micro-batch
  int microbatch = -1;
  bool backward = false;
};

/// Per link: bytes carried and time with at least one flow on it.
struct LinkUsage {
  simgrid::s4u::Link* link = nullptr;
  double bytes = 0;
  double busy_time = 0;
  int active_flows = 0;
  double busy_since = 0;
  std::uint64_t flows = 0;
};

/// Starts flows between GPUs and keeps per-link usage. One per simulation; lives while the engine runs.
/// `on_flow_end` is called once per flow when it completes, with its [start, end] — in simulated-time
/// order, from SimGrid's completion signal.
class Network {
 public:
  using FlowEnd = std::function<void(const FlowInfo&, double start, double end)>;

  Network(std::vector<simgrid::s4u::Host*> gpu_hosts, FlowEnd on_flow_end);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  /// Starts a flow now (an actor must be running).
  simgrid::s4u::CommPtr start_flow(const FlowInfo& flow);

  /// The links a flow from one GPU to another crosses, cached (routes exist once the platform is
  /// sealed, i.e. from inside actors).
  const std::vector<int>& route(int src_gpu, int dst_gpu);
  /// The route's smallest bandwidth and total latency: an α-β view for analytic collectives.
  std::pair<double, double> bottleneck_and_latency(int src_gpu, int dst_gpu);

  /// Called for every activity that completes; accounts the flows among them.
  void flow_ended(const simgrid::s4u::Activity& activity);

  /// Usage of every link any flow crossed, in the order links were first used.
  const std::vector<LinkUsage>& links() const { return links_; }
  simgrid::s4u::Host* host(int gpu) const { return hosts_[gpu]; }

 private:
  struct RouteEntry {
    std::vector<int> links;  // indices into links_
    double latency = 0;
  };
  struct ActiveFlow {
    FlowInfo info;
    const RouteEntry* route;
    double start;
  };
  const RouteEntry& route_entry(int src_gpu, int dst_gpu);

  std::vector<simgrid::s4u::Host*> hosts_;
  FlowEnd on_flow_end_;
  std::vector<LinkUsage> links_;
  std::unordered_map<const simgrid::s4u::Link*, int> link_index_;
  std::unordered_map<std::uint64_t, RouteEntry> routes_;
  std::unordered_map<const simgrid::s4u::Activity*, ActiveFlow> active_;

};

}  // namespace pipegrid::sim
