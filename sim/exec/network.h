// Flows over the platform: starts them, remembers their routes, and accounts what every link
// carried and for how long it was busy, in simulated-time order.
#pragma once

#include <cstdint>
#include <functional>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sim/exec/analytic_holds.h"
#include "sim/exec/flow_owners.h"
#include "sim/exec/load_fold.h"
#include "sim/exec/load_log.h"
#include "sim/platform/dijkstra_routes.h"

namespace pipegrid::sim {

class Rails;

/// What a flow carries, for traces and link accounting.
enum class FlowKind : std::uint8_t {
  PipelineP2p,
  TensorAllReduce,
  DataAllReduce,
  EmbeddingAllReduce,
  StageCopyAllReduce,
  ExpertAllToAll,
  OptimizerCheck,  // post-validation's few bytes between neighbouring pipeline ranks
};

/// The kind as one word, as failure reports and deadlock.json name it: p2p, tp-allreduce, …
std::string_view flow_kind_name(FlowKind kind);

struct FlowInfo {
  FlowKind kind;
  int src_gpu;
  int dst_gpu;
  double bytes;
  int stage = -1;       // pipeline p2p: the result's stage and micro-batch
  int microbatch = -1;
  bool backward = false;
  std::uint64_t tag = 0;  // with dst_gpu, names the message (transfers.h)
};

/// An analytic ring hop inside a TP group (src → dst, member k's) and its image, member 0's hop
/// (src0 → dst0): in lockstep the two account the same bytes over the same interval.
struct AnalyticHopImage {
  int src, dst, src0, dst0;
};

/// Per link of the platform: what it carried, when, and for how long it was busy.
struct LinkUsage {
  simgrid::s4u::Link* link = nullptr;
  /// Its bandwidth as declared, read before the simulation starts (a bandwidth_file changes the
  /// link's current one later).
  double bandwidth = 0;
  double bytes = 0;           // by flows and by analytic collectives
  double analytic_bytes = 0;  // the part analytic collectives would have carried (account_analytic)
  double busy_time = 0;       // time with at least one flow on it
  int active_flows = 0;
  double busy_since = 0;
  std::uint64_t flows = 0;
  /// What it carried over time, at the rates SimGrid gave the flows (Network::sample_flows) and at an
  /// analytic collective's mean rate over its duration, and when at least one flow was on it (an
  /// analytic collective's busy period is its piece): folded as the run goes. Kept only when
  /// `over_time` (the Network's load_over_time): otherwise empty, and busy_time counts flows alone.
  LoadFold load;
  bool over_time = true;
  double rate = 0;           // its flows' bytes per second since rate_since (a piece not yet in `load`)
  double rate_since = 0;
  double rate_change = 0;    // scratch of sample_flows
  bool rate_changed = false;
};

/// Starts flows between GPUs and keeps per-link usage. One per simulation; lives while the engine runs.
class Network {
 public:
  using FlowEnd = std::function<void(const FlowInfo&, double start, double end)>;

  /// The links' loads are folded into windows of `load_window` seconds (links.csv's busiest window),
  /// with the grid's bytes kept when `load_timeline` (links_timeline.csv): link_report asks for those.
  /// Without `load_over_time` a link counts only its bytes, flows and flows' busy time: no load over
  /// time, no busiest window (links.csv's busy_time, utilizations and peak_start), and no per-link
  /// rate is followed at each advance of the clock — for a run that writes no links.csv, where that
  /// bookkeeping was a third of a 3072-GPU run (README "The executor at 3072 GPUs"). What
  /// SimGrid simulates is the same either way.
  explicit Network(std::vector<simgrid::s4u::Host*> gpu_hosts, double load_window = 1e-3, bool load_timeline = true,
                   bool load_over_time = true);
  /// How SimGrid carries a flow (--simgrid-flows): as a host-to-host Comm that maestro owns (`false`),
  /// or as an Exec on the two hosts that an owner actor per source GPU makes (`true`, flow_owners.h):
  /// the same network action, whose end SimGrid 3.32 finds in a list of its owner's activities only.
  /// A flow of no bytes is a Comm either way (SimGrid's default host model takes no Exec of 0 bytes).
  /// Call it before the simulation starts.
  void use_exec_flows(bool exec_flows);
  /// Lets collectives between nodes run one ring per rail (rails.h): the hosts of all the platform's
  /// GPUs in its order (by node, then index in the node), the job's — the constructor's — first, and
  /// each one's node. The platform's other GPUs are only read for their routes, to find the rails;
  /// flows stay between the job's GPUs. Call it before the simulation starts, and only when every
  /// route the rails may need exists (needed_routes.h: rail_routes): SimGrid ends the process on a
  /// missing one. Without it every ring keeps one path per hop.
  void use_rails(std::vector<simgrid::s4u::Host*> platform_gpu_hosts, std::vector<int> node_of_gpu);
  /// Folds the rails (rail_fold.h): a flow between two GPUs of rail k > 0 rides with its image on
  /// rail 0 — the flow between the rail-0 GPUs of their TP groups, `rail0_gpu` — started at the same
  /// time with the same bytes, kind and latency fraction: SimGrid carries one comm for all the
  /// rails' copies, and each copy's links are accounted as if it ran (its bytes, busy time and load
  /// on its own route), and its listeners hear it end. Exact where rail_fold_is_exact holds: every
  /// rail's flows then see what rail 0's see. A comm is made on rail 0's route by whichever copy starts
  /// first; one that has not gathered a copy per rail by the time the clock moves on (or by its end)
  /// means the rails did not run in step, and the run stops with an internal error naming
  /// --rail-fold off. A link with `mirror_of` ≥ 0 (per link, rail_fold.h) is not accounted as the run
  /// goes: close_load gives it its rail-0 link's account. Call it before the simulation starts.
  ///
  /// `analytic_mirror_of` (per link, rail_fold.h: RailFold::analytic_mirror_of) does the same for the
  /// analytic TP all-reduces inside a lockstep group: member k's ring hop (`analytic_hops`: its src →
  /// dst, and member 0's src0 → dst0) skips its mirror links where member 0's hop crosses the mirrored
  /// link at the same place, and close_load gives them that link's account. Any other route over such
  /// a link, or over the link mirrored, is refused (an internal error naming --rail-fold off).
  void use_rail_fold(std::vector<int> rail_of_gpu, std::vector<int> rail0_gpu, int rails, std::vector<int> mirror_of,
                     std::vector<int> analytic_mirror_of = {}, std::vector<AnalyticHopImage> analytic_hops = {});
  /// Finds the routes from the GPUs marked in `searched` with `routes` (platform/dijkstra_routes.h)
  /// instead of SimGrid, and checks every other route it reads from SimGrid against `routes` (an
  /// internal error naming --route-search simgrid where they differ). For the GPUs whose flows SimGrid
  /// never carries — rails k > 0 when folded — so that SimGrid searches from rail 0's GPUs only. Call
  /// it before the simulation starts; stop_searching_routes() forgets those routes (the fold declined:
  /// SimGrid will route every GPU's flows, and the routes must be its own).
  void search_routes(std::shared_ptr<const platform::DijkstraRoutes> routes, std::vector<char> searched);
  void stop_searching_routes();
  /// Routes found by search_routes, and SimGrid's routes it checked.
  std::uint64_t searched_routes() const { return searched_routes_; }
  std::uint64_t checked_routes() const { return checked_routes_; }
  /// SimGrid comms started so far (a folded comm once for all its rails).
  std::uint64_t simgrid_comms() const { return simgrid_comms_; }
  /// The platform's rails, or nullptr when use_rails was not called.
  Rails* rails() { return rails_.get(); }
  /// NCCL's collectives do not reach an NVLink's bandwidth: nccl-tests measure their bus bandwidth at
  /// `efficiency` of it (SimulationOptions::nccl_nvlink_efficiency). Between two GPUs of one node
  /// (`node_of_gpu`, the job's GPUs) a collective's flow carries its bytes / efficiency, which alone on
  /// its route takes as long as its bytes at that share of the bottleneck; collective_bandwidth_and_latency
  /// gives the analytic rings the same. 1: the links' full rate.
  void set_nvlink_collective_efficiency(double efficiency, std::vector<int> node_of_gpu);
  /// bottleneck_and_latency for a collective's hop: the bottleneck times the NVLink efficiency inside
  /// a node.
  std::pair<double, double> collective_bandwidth_and_latency(int src_gpu, int dst_gpu);
  /// Calls `listener` once per flow when it completes, with its [start, end] — at that simulated
  /// time and in that order, from the network model (maestro context: it may resume actors, not
  /// block). (s4u's Activity::on_completion would not do: it fires when someone waits.)
  void on_flow_end(FlowEnd listener) { listeners_.push_back(std::move(listener)); }
  /// Calls `listener` (maestro context) for each flow a link going down cut, or that started over a
  /// link that is down, with the route's links (indices into links()); the flow's links are freed and
  /// its bytes uncounted, as it delivered nothing whole (failure_watch.h).
  using FlowFailed = std::function<void(const FlowInfo&, const std::vector<int>& route)>;
  void on_flow_failed(FlowFailed listener) { failed_listeners_.push_back(std::move(listener)); }
  /// After a failure that ends the job: flows still on the wire end unheard (only failures are
  /// still reported), as the actors that waited for them are gone.
  void stop() { stopped_ = true; }
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  /// Starts a flow now (from an actor, or from maestro in a flow-end listener). `latency_fraction`
  /// scales the route's latency for this flow alone: a message queued on a channel behind another one
  /// has its bytes follow the other's without paying the latency again (Transfers). As an Exec, SimGrid
  /// starts it one scheduling round later at the same simulated time (flow_owners.h); its links are
  /// accounted from now either way.
  void start_flow(const FlowInfo& flow, double latency_fraction = 1);
  /// Whether start_flow can scale a flow's latency: SimGrid takes a per-flow latency factor for its
  /// CM02 and LV08 models only when the platform leaves network/latency-factor to the model.
  bool scales_latency() const { return scales_latency_; }
  /// The latency a flow between two GPUs pays: its route's, times the model's latency factor.
  double effective_latency(int src_gpu, int dst_gpu);

  /// The links a flow from one GPU to another crosses, cached (routes exist once the platform is
  /// sealed, i.e. from inside actors).
  const std::vector<int>& route(int src_gpu, int dst_gpu);
  /// The route's smallest bandwidth and total latency: an α-β view for analytic collectives.
  std::pair<double, double> bottleneck_and_latency(int src_gpu, int dst_gpu);

  /// Called in maestro for every SimGrid activity that ends (its kernel object), at its end; accounts
  /// the flows among them.
  void flow_ended(const void* activity, bool finished);
  /// Called in maestro at every advance of the clock: each flow in flight's rate since the last
  /// advance (what SimGrid's remaining bytes of it say it carried, over the time) and, where it
  /// changed, the rates of the links of its route. SimGrid changes a flow's rate only at an event, and
  /// the clock stops at every event, so the rate is constant between two advances and the load this
  /// records is SimGrid's (to 1e-9 of a rate: a change smaller than that is not one).
  void sample_flows();
  /// Ends the links' current pieces of load now (for a report while flows are still in flight: a
  /// deadlock) and gives each mirror link its rail-0 link's account: call it before reading links().
  void close_load();
  /// An analytic collective's hop from one GPU to another (collectives.h: account_analytic_ring):
  /// the links of its route carried `bytes` over [start, end] and were busy meanwhile. Nothing
  /// contends with it: SimGrid never sees these bytes.
  void account_analytic(int src_gpu, int dst_gpu, double bytes, double start, double end);
  /// Holds that `slot` (a GPU) will account analytic pieces starting at or after `from` until
  /// release_analytic (analytic_holds.h): those accounted when their wait ends, not when it begins.
  void hold_analytic(std::size_t slot, double from) { analytic_holds_.hold(slot, from); }
  void release_analytic(std::size_t slot) { analytic_holds_.release(slot); }

  /// Usage of every link of the platform (Engine::get_all_links, without SimGrid's loopback), unused
  /// ones included, in SimGrid's order; links only a route names come after.
  const std::vector<LinkUsage>& links() const { return links_; }
  simgrid::s4u::Host* host(int gpu) const { return hosts_[gpu]; }

 private:
  bool in_one_node(int src_gpu, int dst_gpu) const {
    return !node_of_gpu_.empty() && node_of_gpu_[src_gpu] == node_of_gpu_[dst_gpu];
  }
  double nvlink_efficiency_ = 1;
  std::vector<int> node_of_gpu_;
  struct RouteEntry {
    std::vector<int> links;      // indices into links_
    std::vector<int> accounted;  // those a flow on it is accounted on: all but the mirror links
    int mirror_mismatch = -1;    // a mirror link it crosses where its rail-0 image does not
    // Those an analytic collective's hop over it is accounted on: all but its analytic mirrors; and
    // a link of a mirror's account it may not reach (account_analytic refuses it).
    std::vector<int> analytic_accounted;
    int analytic_mismatch = -1;
    double latency = 0;
  };
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
    double remaining;            // SimGrid's bytes left at the last sample (its payload's units)
    double scale;                // the flow's bytes per payload byte (the payload is bytes / NVLink efficiency)
    std::uint64_t id;            // its key in active_
    int src_gpu, dst_gpu;        // the GPUs SimGrid carries it between (rail 0's when folded)
    const RouteEntry* route;     // and the route it carries it on
    double latency_fraction;
    bool is_exec = false;
    double carried = 0;          // bytes sample_flows saw it carry
    double rate = 0;             // bytes per second since the last sample
  };
  const RouteEntry& route_entry(int src_gpu, int dst_gpu);
  // The route's links less those that mirror rail 0's, which must lie where rail 0's route has them.
  void set_accounted(int src_gpu, int dst_gpu, RouteEntry& entry);
  // start_flow's work, in maestro: the flow's id, and whether it joined one already started.
  std::pair<std::uint64_t, bool> start_in_maestro(const FlowInfo& flow, double latency_fraction);
  // Starts a flow's activity in SimGrid, `exec` or, when null, a Comm made here (maestro); returns
  // false if the flow failed as it started (a link of its route is down).
  bool launch(ActiveFlow& flow, const simgrid::s4u::ExecPtr& exec);
  // SimGrid 3.32's lazy max-min solver solves again, after an event, only the constraints (links) it
  // marked as modified. A flow whose latency has passed marks the first link of its route, and the
  // links it reaches from there, only if that first link is not marked already
  // (System::update_modified_cnst_set_from_variable): when another flow marked it first, the flow's
  // other links are not solved, and it may take more than their capacity (tests/exec/flows_test.cc:
  // two 1 GB flows into one 1 GB/s port, whose up ports empty flows marked first, took 1 s instead
  // of 2; found as exec flows, made one scheduling round after their requests, broke moe_test). At each advance of the clock, the links of every flow that has carried nothing
  // yet — one whose latency may have just passed — are marked (Link::set_bandwidth of the link's own
  // bandwidth marks its constraint and changes nothing else), once per link and advance.
  void mark_route(const RouteEntry& route, double now);
  std::vector<double> marked_at_;  // per link: the last time mark_route marked it
  // Whether a link of the route SimGrid carries the flow on is down.
  bool route_is_down(const ActiveFlow& flow);
  // A flow's end (`finished`) or failure, by its id: its links' accounts and its listeners.
  void end_flow(std::uint64_t id, bool finished);
  // The ends SimGrid reported for the exec flows since the last call, in the order it reported them.
  void end_reported_flows();
  // A rider's start on its route's links.
  void account_start(const Rider& rider, double now);
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
  // Checks that every comm folded at the current time has its copy on every rail.
  void check_folds_complete();
  void check_fold_complete(const ActiveFlow& flow) const;
  int link_index(simgrid::s4u::Link* link);
  // The route as search_routes' graph finds it: links and latency, summed as SimGrid sums them.
  std::pair<std::vector<simgrid::s4u::Link*>, double> searched_route(int src_gpu, int dst_gpu) const;
  void change_rate(int index, double change, double at);
  void fold_load(LinkUsage& usage);
  // Hands the logged pieces and busy periods to the links' folds, and folds them.
  void flush_load();
  LoadLog load_log_;

  std::vector<simgrid::s4u::Host*> hosts_;
  bool scales_latency_ = false;
  double latency_factor_ = 1;
  std::vector<FlowEnd> listeners_;
  std::vector<FlowFailed> failed_listeners_;
  bool stopped_ = false;
  std::vector<LinkUsage> links_;
  std::unordered_map<const simgrid::s4u::Link*, int> link_index_;
  // Routes by source GPU: each GPU talks to a handful of peers, so a short scan beats hashing.
  std::vector<std::vector<std::pair<int, std::unique_ptr<RouteEntry>>>> routes_;
  // Flows in flight in a deterministic order (the samples' sums are then the same run after run),
  // where each is among them by its id, and the id of each one's SimGrid activity (its kernel object).
  std::vector<ActiveFlow> in_flight_;
  std::unordered_map<std::uint64_t, std::size_t> active_;
  std::unordered_map<const void*, std::uint64_t> id_of_activity_;
  std::uint64_t next_id_ = 0;
  std::unique_ptr<FlowOwners> owners_;  // --simgrid-flows exec
  // Exec flows' ends as SimGrid's network model reported them (Link::on_communication_state_change,
  // in the middle of its update): accounted once the clock has advanced (end_reported_flows).
  std::vector<std::pair<const void*, bool>> reported_ends_;
  std::vector<int> changed_links_;  // links whose rate changed at the last sample
  double last_sample_ = 0;
  // The earliest start of a flow in flight that the last sample saw carry nothing yet (its bytes may
  // still be spread over its life when it ends: flow_ended).
  double uncarried_since_ = 0;
  double load_window_;
  bool load_timeline_;
  bool load_over_time_;
  AnalyticHolds analytic_holds_;
  // Activities completed at the current time, released when the clock moves on.
  std::vector<simgrid::s4u::ActivityPtr> released_;
  std::unique_ptr<Rails> rails_;
  // use_rail_fold's map, and the comms folded at the current time that may still gather riders.
  std::vector<int> rail_of_gpu_, rail0_gpu_;
  int fold_rails_ = 0;
  std::vector<int> mirror_of_;     // per link: the rail-0 link whose account it takes, or -1
  std::vector<char> is_mirrored_;  // per link: a rail-0 link with mirrors
  // Per link: an analytic mirror (its mirror_of_ is member 0's hop's link), and a link mirrored so.
  std::vector<char> analytic_mirror_, analytic_image_;
  bool is_analytic_mirror(int link) const {
    return link < static_cast<int>(analytic_mirror_.size()) && analytic_mirror_[link];
  }
  bool is_analytic_image(int link) const { return link < static_cast<int>(analytic_image_.size()) && analytic_image_[link]; }
  // The analytic hops with mirrors, by (src, dst): their member 0's hop; and member 0's hops.
  static std::uint64_t pair_key(int src, int dst) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 | static_cast<std::uint32_t>(dst);
  }
  std::unordered_map<std::uint64_t, std::pair<int, int>> hop_image_;
  std::unordered_set<std::uint64_t> image_hops_;
  void set_analytic_accounted(int src_gpu, int dst_gpu, RouteEntry& entry);
  // Links found after the fold was set (past the tables' end) are neither mirrors nor mirrored.
  int mirror_of(int link) const { return link < static_cast<int>(mirror_of_.size()) ? mirror_of_[link] : -1; }
  bool mirrored_or_mirror(int link) const {
    return mirror_of(link) != -1 || (link < static_cast<int>(is_mirrored_.size()) && is_mirrored_[link]);
  }
  std::unordered_map<FoldKey, std::uint64_t, FoldKeyHash> forming_;  // the id of each carrier
  double forming_at_ = -1;
  std::uint64_t simgrid_comms_ = 0;
  std::shared_ptr<const platform::DijkstraRoutes> search_;
  std::vector<char> searched_;  // per job GPU: its routes are search_'s
  std::uint64_t searched_routes_ = 0, checked_routes_ = 0;
};

}  // namespace pipegrid::sim
