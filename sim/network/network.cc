#include "sim/network/network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/simix.hpp>
#include <xbt/config.hpp>
#include <stdexcept>
#include <tuple>
#include <fmt/format.h>


namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {
// The latency fraction of the flow being started, read by SimGrid's latency-factor callback, which
// runs inside Comm::start() (maestro, synchronously), so no other flow can start in between.
double starting_latency_fraction = 1;

// Installs the callback where SimGrid takes one: the CM02 family (CM02, LV08) when the platform does
// not set network/latency-factor itself (SimGrid refuses to mix the two). The callback then applies
// the model's own factor (1 for CM02, 13.01 for LV08) times the fraction.
bool install_latency_scaling(double& factor) {
  factor = simgrid::config::get_value<double>("network/latency-factor");
  const std::string model = simgrid::config::get_value<std::string>("network/model");
  if ((model != "CM02" && model != "LV08") || !simgrid::config::is_default("network/latency-factor")) return false;
  sg4::Engine::get_instance()->get_netzone_root()->get_network_model()->set_lat_factor_cb(
      [factor = factor](double, const sg4::Host*, const sg4::Host*, const std::vector<sg4::Link*>&,
               const std::unordered_set<sg4::NetZone*>&) { return factor * starting_latency_fraction; });
  return true;
}

// SimGrid's signals cannot be disconnected from outside, so they are connected once per process and
// forward to the Network alive at the time, if any (one engine per process, and the engine may
// cancel leftover activities after a deadlock, once the Network is gone).
Network* current_network = nullptr;
}  // namespace

Network::Network(std::vector<sg4::Host*> gpu_hosts, double load_window, bool load_timeline, bool load_over_time)
    : hosts_(std::move(gpu_hosts)),
      ledger_(load_window, load_timeline, load_over_time, horizon_),
      routes_(hosts_, ledger_, fold_) {
  // SimGrid 3.32 reports an activity's completion in maestro, at its simulated end and whether or not
  // anyone waits for it, only when maestro started it (EngineImpl::handle_ended_actions); Comm flows
  // are therefore started from maestro (start_flow). Completions arrive in simulated-time order, which
  // is what makes busy-time accounting a simple counter per link. An actor's own wait on an activity
  // fires the signal again, in its context: those, and every exec, are not ours and are skipped.
  static const bool connected = [] {
    sg4::Activity::on_completion_cb([](const sg4::Activity& activity) {
      if (!current_network || current_network->owners_ || !sg4::Actor::is_maestro()) return;
      if (dynamic_cast<const sg4::Comm*>(&activity))
        current_network->flow_ended(activity.get_impl(), activity.get_state() == sg4::Activity::State::FINISHED);
    });
    // An Exec flow is its owner's, not maestro's: its end is heard from the network model itself, as its
    // action finishes or fails, for any activity (a flow of no bytes stays a Comm). The signal names
    // the action as a NetworkAction, a class SimGrid 3.32 does not install; it derives from Action
    // alone (src/kernel/resource/NetworkModel.hpp), whose header it does, so the two share an address.
    sg4::Link::on_communication_state_change_cb(
        [](simgrid::kernel::resource::NetworkAction& action, simgrid::kernel::resource::Action::State) {
          if (!current_network || !current_network->owners_) return;
          const auto& base = reinterpret_cast<const simgrid::kernel::resource::Action&>(action);
          using State = simgrid::kernel::resource::Action::State;
          if (const State state = base.get_state(); state == State::FINISHED || state == State::FAILED)
            current_network->reported_ends_.emplace_back(base.get_activity(), state == State::FINISHED);
        });
    // A completed activity is released only at the next step of the clock: SimGrid's Activity::complete
    // (and ExecImpl::post) still read it after its end is heard. The model reports an exec flow's end
    // before the clock's advance, which samples it to its end first.
    sg4::Engine::on_time_advance_cb([](double) {
      if (!current_network) return;
      current_network->released_.clear();
      current_network->sample_flows();
      current_network->end_reported_flows();
    });
    return true;
  }();
  (void)connected;
  current_network = this;
  log_each_flow_ = logs_each_flow();
  double latency_factor = 1;
  scales_latency_ = install_latency_scaling(latency_factor);
  routes_.set_latency_factor(latency_factor);
  // Every link of the platform, used or not, with its bandwidth before any profile changes it.
  // SimGrid's loopback (a host's route to itself) is the network model's, not the platform's.
  for (sg4::Link* link : sg4::Engine::get_instance()->get_all_links())
    if (link->get_name() != "__loopback__") ledger_.index_of(link);
}

Network::~Network() {
  if (current_network == this) current_network = nullptr;
}

void Network::use_exec_flows(bool exec_flows) {
  // SimGrid's IB model reads a flow's hosts at CommImpl::on_start, which an Exec does not fire.
  if (!exec_flows || simgrid::config::get_value<std::string>("network/model") == "IB") {
    owners_.reset();
    return;
  }
  owners_ = std::make_unique<FlowOwners>(
      hosts_,
      [this](std::uint64_t id, const sg4::ExecPtr& exec) {
        const auto it = active_.find(id);
        if (it != active_.end()) return launch(in_flight_[it->second], exec);
        // Not one to carry any more (cannot happen while the job runs): an exec made must still end.
        exec->set_host(hosts_.front())->set_flops_amount(0)->start();
        return true;
      },
      [this](std::uint64_t id) { end_flow(id, false); });
}

void Network::use_rail_fold(std::vector<int> rail_of_gpu, std::vector<int> rail0_gpu, int rails,
                            std::vector<int> mirror_of, const std::vector<int>& analytic_mirror_of,
                            const std::vector<AnalyticHopImage>& analytic_hops) {
  fold_.set(hosts_.size(), ledger_.links().size(), std::move(rail_of_gpu), std::move(rail0_gpu), rails,
            std::move(mirror_of), analytic_mirror_of, analytic_hops);
  routes_.account_folded();
}

std::size_t Network::FoldKeyHash::operator()(const FoldKey& k) const {
  const std::hash<double> h;
  std::size_t seed = std::hash<int>()(k.src_gpu) * 1000003u ^ std::hash<int>()(k.dst_gpu);
  seed = seed * 31u + static_cast<std::size_t>(k.kind);
  return (seed * 1000003u ^ h(k.bytes)) * 31u ^ h(k.latency_fraction);
}

void Network::account_start(const Rider& rider, double now) {
  if (const int link = rider.route->mirror_mismatch; link != -1)
    throw std::logic_error(fmt::format("--rail-fold: a flow from GPU {} to GPU {} crosses link {}, a mirror, where "
                                       "its rail-0 image does not; --rail-fold off accounts every link",
                                       rider.info.src_gpu, rider.info.dst_gpu, links()[link].link->get_name()));
  ledger_.flow_started(rider.route->accounted, rider.info.bytes, now);
}

void Network::check_fold_complete(const ActiveFlow& flow) const {
  if (!fold_.folded() || static_cast<int>(flow.riders.size()) == fold_.rails() ||
      !fold_.folds(flow.riders.front().info.src_gpu, flow.riders.front().info.dst_gpu))
    return;
  const FlowInfo& f = flow.riders.front().info;
  throw std::logic_error(fmt::format(
      "--rail-fold: a {} flow from GPU {} to GPU {} ({} bytes) started at {} s on {} of the {} rails only: the "
      "rails did not run in step; --rail-fold off runs every rail's flows",
      flow_kind_name(f.kind), f.src_gpu, f.dst_gpu, f.bytes, flow.start, flow.riders.size(), fold_.rails()));
}

void Network::check_folds_complete() {
  for (const auto& [key, id] : forming_)
    if (const auto it = active_.find(id); it != active_.end()) check_fold_complete(in_flight_[it->second]);
  forming_.clear();
}

void Network::start_flow(const FlowInfo& flow, double latency_fraction) {
  // Accounted (and, a Comm, made and started) by maestro on the calling actor's behalf (see the
  // constructor): one simcall, as a start() from the actor is. The flows the actors of one scheduling
  // round start are so taken one after the other, in the round's order, and a rail's copy finds the
  // flow its rail-0 copy started.
  std::uint64_t id = 0;
  bool failed = false;
  simgrid::kernel::actor::simcall_answered([&] {
    bool joined = false;
    std::tie(id, joined) = start_in_maestro(flow, latency_fraction);
    if (joined) return;
    ActiveFlow& started = in_flight_[active_.at(id)];
    if (owners_ && started.is_exec)
      owners_->request(started.src_gpu, id);
    else
      failed = !launch(started, nullptr);
  });
  // SimGrid 3.32 fails a flow that starts over a link that is down inside start() and tells no one
  // (CommImpl::start: LINK_FAILURE, then post()): its listeners hear of it here, from the actor.
  if (failed) end_flow(id, false);
}

bool Network::route_is_down(const ActiveFlow& flow) {
  const auto& route = flow.riders.front().route->links;
  return std::any_of(route.begin(), route.end(), [&](int index) { return !links()[index].link->is_on(); });
}

bool Network::launch(ActiveFlow& flow, const sg4::ExecPtr& exec) {
  if (exec) {
    // HostCLM03Model::execute_parallel: two hosts, no flops, one byte amount is communicate(src, dst).
    exec->set_hosts({hosts_[flow.src_gpu], hosts_[flow.dst_gpu]});
    exec->set_flops_amounts({0, 0});
    exec->set_bytes_amounts({0, flow.remaining, 0, 0});
    flow.activity = exec;
  } else {
    sg4::CommPtr comm = sg4::Comm::sendto_init(hosts_[flow.src_gpu], hosts_[flow.dst_gpu]);
    comm->set_payload_size(static_cast<std::uint64_t>(flow.remaining));
    flow.activity = comm;
  }
  // Registered before it starts, so that its end finds it.
  id_of_activity_.emplace(flow.activity->get_impl(), flow.id);
  starting_latency_fraction = scales_latency_ ? flow.latency_fraction : 1;
  flow.activity->start();
  starting_latency_fraction = 1;
  ++simgrid_comms_;
  return failed_listeners_.empty() || !route_is_down(flow);
}

std::pair<std::uint64_t, bool> Network::start_in_maestro(const FlowInfo& flow, double latency_fraction) {
  const double now = sg4::Engine::get_clock();
  Rider rider{flow, &routes_.entry(flow.src_gpu, flow.dst_gpu)};
  // A copy of a flow already started now on another rail rides with it.
  const bool folds = fold_.folds(flow.src_gpu, flow.dst_gpu);
  FoldKey key{};
  if (folds) {
    if (forming_at_ != now) check_folds_complete();
    forming_at_ = now;
    key = {fold_.rail0(flow.src_gpu), fold_.rail0(flow.dst_gpu), flow.kind, flow.bytes, latency_fraction};
    if (const auto it = forming_.find(key); it != forming_.end()) {
      const auto at = active_.find(it->second);
      if (at == active_.end())
        throw std::logic_error(fmt::format("--rail-fold: a {} flow of rail {} started at {} s after its rail-0 copy "
                                           "ended; --rail-fold off runs them apart",
                                           flow_kind_name(flow.kind), fold_.rail_of(flow.src_gpu), now));
      ActiveFlow& carrier = in_flight_[at->second];
      for (const Rider& other : carrier.riders)
        if (fold_.rail_of(other.info.src_gpu) == fold_.rail_of(flow.src_gpu))
          throw std::logic_error(fmt::format("--rail-fold: two {} flows of rail {} between the same GPUs' groups "
                                             "started at {} s; --rail-fold off runs them apart",
                                             flow_kind_name(flow.kind), fold_.rail_of(flow.src_gpu), now));
      account_start(rider, now);
      carrier.riders.push_back(rider);
      ++counts_.started;
      if (log_each_flow_) log_flow_started(carrier.id, flow, now, true);
      return {carrier.id, true};
    }
  }
  account_start(rider, now);
  // The flow runs on rail 0's route, whichever rail's copy starts it.
  const int src = folds ? key.src_gpu : flow.src_gpu;
  const int dst = folds ? key.dst_gpu : flow.dst_gpu;
  // A NCCL collective's hop inside a node moves its bytes at the NVLink efficiency: SimGrid is given
  // bytes / efficiency to carry (the link accounting above keeps the real bytes). Under contention
  // it also takes that much more of the links' share, as NCCL's channels occupy them.
  const double efficiency = routes_.nvlink_efficiency();
  const bool slowed = efficiency < 1 && is_collective(flow.kind) && routes_.in_one_node(src, dst);
  const auto payload = static_cast<std::uint64_t>(slowed ? flow.bytes / efficiency : flow.bytes);
  const std::uint64_t id = next_id_++;
  active_.emplace(id, in_flight_.size());
  in_flight_.push_back(ActiveFlow{{rider}, now, nullptr, static_cast<double>(payload),
                                  payload > 0 ? flow.bytes / static_cast<double>(payload) : 0, id, src, dst,
                                  folds ? &routes_.entry(src, dst) : rider.route, latency_fraction,
                                  owners_ && payload > 0});
  if (folds) forming_.emplace(key, id);
  ++counts_.started;
  if (log_each_flow_) log_flow_started(id, flow, now, false);
  return {id, false};
}

void Network::mark_route(const RouteEntry& route, double now) {
  for (int index : route.links) {
    if (marked_at_.size() <= static_cast<std::size_t>(index)) marked_at_.resize(links().size(), -1);
    if (marked_at_[index] == now) continue;
    marked_at_[index] = now;
    sg4::Link* link = links()[index].link;
    link->set_bandwidth(link->get_bandwidth());
  }
}

void Network::sample_flows() {
  const double now = sg4::Engine::get_clock();
  if (now <= horizon_.last_sample) {
    // No time to sample over (an event at the time of the last one); the marks are still due.
    for (const ActiveFlow& flow : in_flight_)
      if (flow.activity && flow.carried <= 0) mark_route(*flow.route, now);
    return;
  }
  if (!forming_.empty()) check_folds_complete();
  const double elapsed = now - horizon_.last_sample;
  horizon_.uncarried_since = now;
  for (ActiveFlow& flow : in_flight_) {
    // An owner's end (the job failed) cancelled its exec flows: they carry nothing more.
    if (!flow.activity || (stopped_ && flow.is_exec)) continue;
    // A two-host exec's remaining work is its network action's bytes (ExecImpl::get_par_remaining_ratio).
    const double remaining = flow.is_exec ? static_cast<const sg4::Exec&>(*flow.activity).get_remaining_ratio()
                                          : flow.activity->get_remaining();
    const double bytes = std::max(0.0, (flow.remaining - remaining) * flow.scale);
    flow.remaining = remaining;
    flow.carried += bytes;
    if (flow.carried <= 0) {
      horizon_.uncarried_since = std::min(horizon_.uncarried_since, flow.start);
      mark_route(*flow.route, now);
    }
    if (!ledger_.over_time()) continue;
    const double rate = bytes / elapsed;
    if (std::abs(rate - flow.rate) <= 1e-9 * std::max(rate, flow.rate)) continue;
    for (const Rider& rider : flow.riders) ledger_.add_rate_change(rider.route->accounted, rate - flow.rate);
    flow.rate = rate;
  }
  ledger_.apply_rate_changes(horizon_.last_sample);
  ledger_.flush_if_full();
  horizon_.last_sample = now;
}

void Network::end_reported_flows() {
  // By index: a listener may end the job, and the cancelled flows are reported meanwhile.
  for (std::size_t i = 0; i < reported_ends_.size(); ++i) flow_ended(reported_ends_[i].first, reported_ends_[i].second);
  reported_ends_.clear();
}

void Network::flow_ended(const void* activity, bool finished) {
  const auto it = id_of_activity_.find(activity);
  if (it == id_of_activity_.end()) return;  // not a flow of ours, or heard already
  const std::uint64_t id = it->second;
  id_of_activity_.erase(it);
  end_flow(id, finished);
}

void Network::end_flow(std::uint64_t id, bool finished) {
  const auto it = active_.find(id);
  if (it == active_.end() || (stopped_ && finished)) return;  // not a flow of ours, or no one listens
  const double end = sg4::Engine::get_clock();
  const std::size_t position = it->second;
  active_.erase(it);
  ActiveFlow flow = std::move(in_flight_[position]);
  if (position + 1 != in_flight_.size()) {
    in_flight_[position] = std::move(in_flight_.back());
    active_[in_flight_[position].id] = position;
  }
  in_flight_.pop_back();
  if (stopped_ && flow.is_exec && !route_is_down(flow)) {
    // An owner's end (the job failed, Actor::kill_all) cancelled it: unheard, as a Comm left on the
    // wire is, and carrying nothing from now on (sample_flows skips it meanwhile).
    for (const Rider& rider : flow.riders) ledger_.flow_dropped(rider.route->accounted, flow.rate, end);
    released_.push_back(std::move(flow.activity));
    return;
  }
  // The clock's advance to `end` sampled the flow to (nearly) nothing left: its rate leaves its links
  // now. What rounding left goes to the piece that ends here (a zero-length piece is added to it); a
  // flow never sampled spreads its bytes over its life. A flow cut by a failure carried only what it
  // was sampled to have carried, and is not one of the link's flows (--on-failure wait sends it again).
  if (finished) check_fold_complete(flow);
  // Every rider carried what the comm did (riders fold only with the same bytes).
  for (const Rider& rider : flow.riders)
    ledger_.flow_ended(rider.route->accounted, flow.rate, rider.info.bytes - flow.carried, flow.carried, flow.start,
                       end, finished);
  ledger_.flush_if_full();
  // before the listeners, who may start flows
  if (flow.activity) {
    id_of_activity_.erase(flow.activity->get_impl());  // a failure at its start, heard from the actor
    released_.push_back(std::move(flow.activity));
  }
  (finished ? counts_.finished : counts_.cut) += flow.riders.size();
  if (log_each_flow_)
    for (const Rider& rider : flow.riders) log_flow_ended(id, rider.info, flow.start, end, finished);
  if (!finished) {
    for (const Rider& rider : flow.riders)
      for (const FlowFailed& listener : failed_listeners_) listener(rider.info, rider.route->links);
    return;
  }
  // In rail order, as the rails' copies started (rail 0's first where the actors ran in step).
  if (flow.riders.size() > 1)
    std::sort(flow.riders.begin(), flow.riders.end(), [&](const Rider& a, const Rider& b) {
      return fold_.rail_of(a.info.src_gpu) < fold_.rail_of(b.info.src_gpu);
    });
  for (const Rider& rider : flow.riders)
    for (const FlowEnd& listener : listeners_) listener(rider.info, flow.start, end);
}

}  // namespace pipegrid::sim

namespace pipegrid::sim {

void Network::account_analytic(int src_gpu, int dst_gpu, double bytes, double start, double end) {
  if (bytes <= 0 || end <= start) return;
  const RouteEntry& route = routes_.entry(src_gpu, dst_gpu);
  if (route.analytic_mismatch != -1)
    throw std::logic_error(fmt::format("--rail-fold: an analytic collective from GPU {} to GPU {} crosses link {}, "
                                       "whose account mirrors another link's or is mirrored; --rail-fold off accounts "
                                       "every link",
                                       src_gpu, dst_gpu, links()[route.analytic_mismatch].link->get_name()));
  ledger_.account_analytic(route.analytic_accounted, bytes, start, end);
}

void Network::close_load() {
  counts_.simgrid_comms = simgrid_comms_;
  log_flow_counts(counts_, sg4::Engine::get_clock());
  ledger_.close(sg4::Engine::get_clock(), fold_.mirrors());
}

}  // namespace pipegrid::sim
