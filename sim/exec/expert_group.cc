#include "sim/exec/expert_group.h"

#include <algorithm>
#include <set>
#include <simgrid/s4u/Actor.hpp>

#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

ExpertTraffic::ExpertTraffic(const Placement& placement, const ExpertRouting& routing,
                             const std::vector<int>& node_of_gpu, int gpu)
    : members(placement.group(gpu, "ep")), member(placement.rank_in(gpu, "ep")), shares(routing.member_shares),
      top_k(routing.top_k) {
  std::set<int> distinct;
  for (int m : members) {
    nodes.push_back(node_of_gpu[m]);
    distinct.insert(node_of_gpu[m]);
  }
  // DeepSeek-V3's node-limited routing: a token reaches experts on at most M nodes and DeepEP sends it
  // over InfiniBand once per node, where without the limit its k experts would each get a copy: the
  // InfiniBand bytes shrink by M / k (when the group spans more than M nodes).
  const int limit = routing.max_nodes_per_token;
  if (limit > 0 && static_cast<int>(distinct.size()) > limit && limit < routing.top_k)
    internode_factor = static_cast<double>(limit) / routing.top_k;
}

double ExpertTraffic::received_assignments(double tokens) const {
  return static_cast<double>(members.size()) * tokens * top_k * shares[member];
}

double ExpertTraffic::pair_bytes(int from, int to, ExpertDirection direction, double bytes_per_assignment,
                                 double tokens) const {
  if (from == to) return 0;
  // To experts: `from` owns the tokens and sends those routed to `to`'s experts; from experts: `from`
  // holds the experts and returns their results for `to`'s tokens.
  const double share = direction == ExpertDirection::ToExperts ? shares[to] : shares[from];
  double bytes = tokens * top_k * share * bytes_per_assignment;
  if (nodes[from] != nodes[to]) bytes *= internode_factor;
  return bytes;
}

double ExpertTraffic::analytic_seconds(Network& network, ExpertDirection direction, double bytes_per_assignment,
                                       double tokens) const {
  const int size = static_cast<int>(members.size());
  double seconds = 0, latency = 0;
  for (int i = 0; i < size; ++i) {
    double out_near = 0, out_far = 0, in_near = 0, in_far = 0, near_bw = 0, far_bw = 0;
    for (int j = 0; j < size; ++j) {
      if (i == j) continue;
      const auto [bandwidth, lat] = network.routes().bottleneck_and_latency(members[i], members[j]);
      latency = std::max(latency, lat);
      const bool far = nodes[i] != nodes[j];
      (far ? out_far : out_near) += pair_bytes(i, j, direction, bytes_per_assignment, tokens);
      (far ? in_far : in_near) += pair_bytes(j, i, direction, bytes_per_assignment, tokens);
      (far ? far_bw : near_bw) = bandwidth;
    }
    if (near_bw > 0) seconds = std::max(seconds, std::max(out_near, in_near) / near_bw);
    if (far_bw > 0) seconds = std::max(seconds, std::max(out_far, in_far) / far_bw);
  }
  return seconds + latency;
}

ExpertGroup::ExpertGroup(Job& job, int gpu)
    : job_(job), gpu_(gpu), traffic_(job.plan.placement, job.plan.costs.routing(), job.gpus.node_of_gpu, gpu),
      member_(traffic_.member), members_(traffic_.members) {
  if (job.plan.options.ep_comm != CommFidelity::Flow || job.plan.options.ep_flows != EpFlows::DeepEp || size() < 2) return;
  const std::vector<MemberPlace> places = member_places(members_, job.gpus.node_of_gpu);
  for (const Direction direction : {Direction::ToExperts, Direction::FromExperts}) {
    const int d = static_cast<int>(direction);
    for (const ExpertFlow& flow :
         deepep_flows(places, traffic_.shares, traffic_.internode_factor, direction == Direction::ToExperts)) {
      if (flow.src == member_) sends_[d].push_back({flow.dst, flow.share});
      if (flow.dst == member_) receives_[d].push_back({flow.src, flow.share});
    }
  }
}

double ExpertGroup::analytic_seconds(Direction direction, double bytes_per_assignment, double tokens) {
  for (const AnalyticCase& known : analytic_)
    if (known.direction == direction && known.bytes_per_assignment == bytes_per_assignment && known.tokens == tokens)
      return known.seconds;
  const double seconds = traffic_.analytic_seconds(job_.network, direction, bytes_per_assignment, tokens);
  analytic_.push_back({direction, bytes_per_assignment, tokens, seconds});
  return seconds;
}

void ExpertGroup::all_to_all(Direction direction, double bytes_per_assignment, double tokens,
                             std::uint64_t position, int phase, bool computing_meanwhile) {
  if (size() < 2 || job_.plan.options.ep_comm == CommFidelity::Off) return;
  if (job_.plan.options.ep_comm == CommFidelity::Analytic) {
    const double start = sg4::Engine::get_clock(), seconds = analytic_seconds(direction, bytes_per_assignment, tokens);
    // What the member's sends would have carried, for the links' report (no flow runs).
    for (int j = 0; j < size(); ++j)
      if (j != member_)
        job_.network.account_analytic(gpu_, members_[j], pair_bytes(member_, j, direction, bytes_per_assignment, tokens),
                                      start, start + seconds);
    sg4::this_actor::sleep_for(seconds);
    return;
  }
  if (job_.plan.options.ep_flows == EpFlows::DeepEp)
    deepep_all_to_all(direction, bytes_per_assignment, tokens, position, phase, computing_meanwhile);
  else
    pairwise_all_to_all(direction, bytes_per_assignment, tokens, position, phase, computing_meanwhile);
}

void ExpertGroup::pairwise_all_to_all(Direction direction, double bytes_per_assignment, double tokens,
                                      std::uint64_t position, int phase, bool computing_meanwhile) {
  Transfers& transfers = job_.transfers;
  const auto phase_tag = static_cast<std::uint64_t>(phase);
  for (int j = 0; j < size(); ++j)
    if (j != member_) {
      const double bytes = pair_bytes(member_, j, direction, bytes_per_assignment, tokens);
      transfers.post_send({members_[j], expert_tag(position, phase_tag, static_cast<std::uint64_t>(member_))},
                          FlowInfo{FlowKind::ExpertAllToAll, gpu_, members_[j], bytes}, /*eager=*/true);
    }
  for (int j = 0; j < size(); ++j)
    if (j != member_) {
      const MessageKey key{gpu_, expert_tag(position, phase_tag, static_cast<std::uint64_t>(j))};
      transfers.post_receive(key, FlowInfo{FlowKind::ExpertAllToAll, members_[j], gpu_, 0});
    }
  for (int j = 0; j < size(); ++j)
    if (j != member_)
      transfers.wait({gpu_, expert_tag(position, phase_tag, static_cast<std::uint64_t>(j))}, false, computing_meanwhile);
}

// DeepEP pipelines its two hops — forwarder warps move each chunk over NVLink as it arrives over
// InfiniBand (combine: send it over InfiniBand as it is reduced) — so both hops' flows start at once
// and the all-to-all ends when the last of them does. That leaves out the wait for the first chunk
// (T_model ≥ max(T_IB, T_NVLink), the true time at most one chunk's second hop and its latency more,
// and never more than the two hops one after the other, T_IB + T_NVLink). A member waits for what it
// sends too: its DeepEP kernel ends only when its senders and forwarders have delivered.
void ExpertGroup::deepep_all_to_all(Direction direction, double bytes_per_assignment, double tokens,
                                    std::uint64_t position, int phase, bool computing_meanwhile) {
  Transfers& transfers = job_.transfers;
  const int d = static_cast<int>(direction);
  const auto phase_tag = static_cast<std::uint64_t>(phase);
  const double per_share = tokens * job_.plan.costs.routing().top_k * bytes_per_assignment;
  const auto me = static_cast<std::uint64_t>(member_);
  for (const Peer& to : sends_[d])
    transfers.post_send({members_[to.member], expert_tag(position, phase_tag, me)},
                        FlowInfo{FlowKind::ExpertAllToAll, gpu_, members_[to.member], to.share * per_share},
                        /*eager=*/true, /*sender_waits=*/true);
  for (const Peer& from : receives_[d])
    transfers.post_receive({gpu_, expert_tag(position, phase_tag, static_cast<std::uint64_t>(from.member))},
                           FlowInfo{FlowKind::ExpertAllToAll, members_[from.member], gpu_, 0});
  for (const Peer& from : receives_[d])
    transfers.wait({gpu_, expert_tag(position, phase_tag, static_cast<std::uint64_t>(from.member))}, false,
                   computing_meanwhile);
  for (const Peer& to : sends_[d])
    transfers.wait({members_[to.member], expert_tag(position, phase_tag, me)}, true, computing_meanwhile);
}

}  // namespace pipegrid::sim
