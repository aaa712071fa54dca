// Flows over the platform: starts them as SimGrid activities, hears them end, samples their rates at
// every advance of the clock, and tells the link ledger what each carried. It owns the three roles a
// flow needs: the routes (route_table.h), the links' accounts (link_ledger.h) and the folded rails'
// map (fold_map.h). One per simulation; lives while the engine runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/network/flow.h"
#include "sim/network/flow_log.h"
#include "sim/network/flow_owners.h"
#include "sim/network/fold_map.h"
#include "sim/network/link_ledger.h"
#include "sim/network/route_table.h"

namespace pipegrid::sim {

class Network {
 public:
  using FlowEnd = std::function<void(const FlowInfo&, double start, double end)>;
  using FlowFailed = std::function<void(const FlowInfo&, const std::vector<int>& route)>;

  /// The links' loads folded into windows of `load_window` seconds, the grid kept when `load_timeline`;
  /// without `load_over_time` no load over time is followed (link_ledger.h). Lists every link of the
  /// platform, used or not.
  explicit Network(std::vector<simgrid::s4u::Host*> gpu_hosts, double load_window = 1e-3, bool load_timeline = true,
                   bool load_over_time = true);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  RouteTable& routes() { return routes_; }
  const LinkLedger& ledger() const { return ledger_; }
  LinkLedger& ledger() { return ledger_; }
  const std::vector<LinkUsage>& links() const { return ledger_.links(); }

  /// How SimGrid carries a flow (--simgrid-flows): a host-to-host Comm that maestro owns (`false`), or
  /// an Exec on the two hosts made by an owner actor per source GPU (`true`, flow_owners.h). A flow of
  /// no bytes is a Comm either way. Call it before the simulation starts.
  void use_exec_flows(bool exec_flows);
  /// Folds the rails (rail_fold.h): a flow between two GPUs of rail k > 0 rides with its image on rail
  /// 0, started at the same time with the same bytes, kind and latency fraction; SimGrid carries one
  /// comm for all the copies and each copy is accounted on its own route. A comm that has not gathered
  /// a copy per rail by the time the clock moves on stops the run (an internal error naming
  /// --rail-fold off). The mirror links (fold_map.h) take their image's account at close_load. Call
  /// it before the simulation starts.
  void use_rail_fold(std::vector<int> rail_of_gpu, std::vector<int> rail0_gpu, int rails, std::vector<int> mirror_of,
                     const std::vector<int>& analytic_mirror_of = {},
                     const std::vector<AnalyticHopImage>& analytic_hops = {});
  /// SimGrid comms started so far (a folded comm once for all its rails).
  std::uint64_t simgrid_comms() const { return simgrid_comms_; }

  /// Calls `listener` once per flow when it completes, with its [start, end] — at that simulated time,
  /// in that order, in maestro (it may resume actors, not block).
  void on_flow_end(FlowEnd listener) { listeners_.push_back(std::move(listener)); }
  /// Calls `listener` (maestro) for each flow a link going down cut, or that started over a link that
  /// is down, with its route's links; its bytes are uncounted, as it delivered nothing whole.
  void on_flow_failed(FlowFailed listener) { failed_listeners_.push_back(std::move(listener)); }
  /// After a failure that ends the job: flows still on the wire end unheard.
  void stop() { stopped_ = true; }

  /// Starts a flow now (from an actor, or from maestro in a flow-end listener). `latency_fraction`
  /// scales the route's latency for this flow alone: a message queued on a channel behind another has
  /// its bytes follow the other's without paying the latency again (transfers.h).
  void start_flow(const FlowInfo& flow, double latency_fraction = 1);
  /// Whether start_flow can scale a flow's latency: SimGrid takes a per-flow latency factor for its
  /// CM02 and LV08 models only when the platform leaves network/latency-factor to the model.
  bool scales_latency() const { return scales_latency_; }

  /// An analytic collective's hop (collectives.h): the links of its route carried `bytes` over
  /// [start, end] and were busy meanwhile. Nothing contends with it: SimGrid never sees these bytes.
  void account_analytic(int src_gpu, int dst_gpu, double bytes, double start, double end);
  /// Ends the links' open pieces now and gives each mirror its link's account: before reading links().
  void close_load();

 private:
  // One copy of a flow: what it carries and its route. A comm carries one, or one per rail when folded.
  struct Rider {
    FlowInfo info;
    const RouteEntry* route;
  };
  struct ActiveFlow {
    std::vector<Rider> riders;  // the first rider's kind, bytes and latency fraction are the comm's
    double start;
    // The Comm or Exec that carries it, alive until it completes (SimGrid keeps only a raw pointer to
    // it); null while its owner has not made it yet.
    simgrid::s4u::ActivityPtr activity;
    double remaining;         // SimGrid's bytes left at the last sample (its payload's units)
    double scale;             // the flow's bytes per payload byte (the payload is bytes / NVLink efficiency)
    std::uint64_t id;         // its key in active_
    int src_gpu, dst_gpu;     // the GPUs SimGrid carries it between (rail 0's when folded)
    const RouteEntry* route;  // and the route it carries it on
    double latency_fraction;
    bool is_exec = false;
    double carried = 0;  // bytes sample_flows saw it carry
    double rate = 0;     // bytes per second since the last sample
  };
  // What folds flows together: the rail-0 pair, the kind, the bytes and the latency fraction.
  struct FoldKey {
    int src_gpu, dst_gpu;
    FlowKind kind;
    double bytes, latency_fraction;
    friend bool operator==(const FoldKey&, const FoldKey&) = default;
  };
  struct FoldKeyHash {
    std::size_t operator()(const FoldKey& k) const;
  };
  // start_flow's work, in maestro: the flow's id, and whether it joined one already started.
  std::pair<std::uint64_t, bool> start_in_maestro(const FlowInfo& flow, double latency_fraction);
  // Starts a flow's activity, `exec` or, when null, a Comm made here (maestro); false if the flow failed
  // as it started (a link of its route is down).
  bool launch(ActiveFlow& flow, const simgrid::s4u::ExecPtr& exec);
  // A rider's start on its route's links.
  void account_start(const Rider& rider, double now);
  // Called in maestro for every SimGrid activity that ends, at its end; accounts the flows among them.
  void flow_ended(const void* activity, bool finished);
  // A flow's end (`finished`) or failure, by its id: its links' accounts and its listeners.
  void end_flow(std::uint64_t id, bool finished);
  // The ends SimGrid reported for the exec flows since the last call, in the order it reported them.
  void end_reported_flows();
  // At every advance of the clock: each flow's rate since the last advance (what SimGrid's remaining
  // bytes say it carried), and where it changed, its links' rates. SimGrid changes a rate only at an
  // event, and the clock stops at every event, so the load recorded is SimGrid's.
  void sample_flows();
  // SimGrid 3.32's lazy max-min solver re-solves after an event only the links it marked; a flow
  // whose latency just passed marks its route only if its first link is unmarked, so its other links
  // may go unsolved (docs/design.md, "SimGrid facts"). At each advance the links of every flow that
  // has carried nothing yet are marked (Link::set_bandwidth of the link's own bandwidth), once each.
  void mark_route(const RouteEntry& route, double now);
  bool route_is_down(const ActiveFlow& flow);
  // Every comm folded at the current time has its copy on every rail.
  void check_folds_complete();
  void check_fold_complete(const ActiveFlow& flow) const;

  std::vector<simgrid::s4u::Host*> hosts_;
  FlowHorizon horizon_;
  LinkLedger ledger_;
  FoldMap fold_;
  RouteTable routes_;
  bool scales_latency_ = false;
  std::vector<FlowEnd> listeners_;
  std::vector<FlowFailed> failed_listeners_;
  bool stopped_ = false;
  // Flows in flight in a deterministic order (the samples' sums are then the same run after run),
  // where each is among them by its id, and the id of each one's SimGrid activity (its kernel object).
  std::vector<ActiveFlow> in_flight_;
  std::unordered_map<std::uint64_t, std::size_t> active_;
  std::unordered_map<const void*, std::uint64_t> id_of_activity_;
  std::uint64_t next_id_ = 0;
  std::unique_ptr<FlowOwners> owners_;  // --simgrid-flows exec
  // Exec flows' ends as SimGrid's network model reported them, in the middle of its update: accounted
  // once the clock has advanced (end_reported_flows).
  std::vector<std::pair<const void*, bool>> reported_ends_;
  std::vector<double> marked_at_;  // per link: the last time mark_route marked it
  // Activities completed at the current time, released when the clock moves on.
  std::vector<simgrid::s4u::ActivityPtr> released_;
  std::unordered_map<FoldKey, std::uint64_t, FoldKeyHash> forming_;  // the comms folded now: each carrier's id
  double forming_at_ = -1;
  std::uint64_t simgrid_comms_ = 0;
  bool log_each_flow_ = false;  // the `network` logger at trace (flow_log.h), asked once
  FlowCounts counts_;
};

}  // namespace pipegrid::sim
