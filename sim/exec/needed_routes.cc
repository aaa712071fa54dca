#include "sim/exec/needed_routes.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "sim/network/expert_flows.h"

namespace pipegrid::sim {

namespace {

class Needs {
 public:
  explicit Needs(const std::vector<PlatformGpu>& gpus) : gpus_(gpus) {}
  void add(int src, int dst, const std::string& why) {
    if (src != dst && seen_.insert({src, dst}).second) routes_.push_back({src, dst, why});
  }
  // Each member to the next, as a ring all-reduce sends (collectives.h).
  void ring(const std::vector<int>& group, const std::string& why) {
    if (group.size() < 2) return;
    for (std::size_t i = 0; i < group.size(); ++i) add(group[i], group[(i + 1) % group.size()], why);
    // A ring between nodes with two members or more on each may run one ring per rail (rails.h).
    std::map<int, int> members;
    for (int gpu : group) ++members[gpus_[gpu].node];
    if (members.size() > 1 && std::all_of(members.begin(), members.end(), [](const auto& m) { return m.second > 1; }))
      multi_ring_groups_.push_back(group);
  }
  std::vector<NeededRoute> routes_;
  std::vector<std::vector<int>> multi_ring_groups_;

 private:
  const std::vector<PlatformGpu>& gpus_;
  std::set<std::pair<int, int>> seen_;
};

Needs collect(const SimulationInput& input);

}  // namespace

std::vector<NeededRoute> needed_routes(const SimulationInput& input) {
  return collect(input).routes_;
}

std::vector<NeededRoute> rail_routes(const SimulationInput& input) {
  const Needs rings = collect(input);
  std::map<int, std::vector<int>> gpus_of_node;
  for (int g = 0; g < static_cast<int>(input.platform_gpus.size()); ++g)
    gpus_of_node[input.platform_gpus[g].node].push_back(g);
  const auto node_of = [&](int gpu) { return input.platform_gpus[gpu].node; };
  Needs needs(input.platform_gpus);
  std::set<int> nodes;
  for (const std::vector<int>& group : rings.multi_ring_groups_)
    for (int gpu : group) nodes.insert(node_of(gpu));
  // What Rails reads to find a node's rails: its GPUs' routes among themselves and to the next node's.
  for (int node : nodes) {
    const std::vector<int>& gpus = gpus_of_node.at(node);
    auto next = gpus_of_node.upper_bound(node);
    if (next == gpus_of_node.end()) next = gpus_of_node.begin();
    const std::string why = fmt::format("finding the rails of node {}", node);
    for (int src : gpus) {
      for (int dst : gpus) needs.add(src, dst, why);
      for (int dst : next->second) needs.add(src, dst, why);
    }
  }
  // A ring per rail goes round the group's nodes in the order of their first member, and may hop from
  // any member of a node to any other member of it or of the next node.
  for (const std::vector<int>& group : rings.multi_ring_groups_) {
    std::vector<int> order;
    std::map<int, std::vector<int>> members;
    for (int gpu : group) {
      if (members[node_of(gpu)].empty()) order.push_back(node_of(gpu));
      members[node_of(gpu)].push_back(gpu);
    }
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int a = order[k], b = order[(k + 1) % order.size()];
      const std::string why = fmt::format("collectives from node {} to node {} with one ring per rail", a, b);
      for (int src : members.at(a)) {
        for (int dst : members.at(a)) needs.add(src, dst, why);
        for (int dst : members.at(b)) needs.add(src, dst, why);
      }
    }
  }
  return std::move(needs.routes_);
}

namespace {

// The first GPU of each group of `kind` on pipeline rank r, in GPU order.
std::vector<int> first_members(const Placement& placement, int r, std::string_view kind) {
  std::vector<int> firsts;
  for (int g = 0; g < placement.num_gpus(); ++g)
    if (placement.coordinates(g).pp == r && placement.rank_in(g, kind) == 0) firsts.push_back(g);
  return firsts;
}

Needs collect(const SimulationInput& input) {
  const Placement& placement = input.placement;
  const Schedule& s = input.schedule;
  const ParallelSizes& sizes = placement.sizes();
  const JobCosts& costs = input.costs;
  Needs needs(input.platform_gpus);
  for (int stage = 0; stage < s.num_stages(); ++stage) {
    const int next = s.layout.next[stage];
    if (next < 0 || s.rank_of(next) == s.rank_of(stage)) continue;
    const int a = s.rank_of(stage), b = s.rank_of(next);
    const std::string why = fmt::format("pipeline transfers between pp ranks {} and {}", a, b);
    for (int d = 0; d < sizes.dp; ++d)
      for (int c = 0; c < sizes.cp; ++c)
        for (int t = 0; t < sizes.tp; ++t) {
          needs.add(placement.gpu({t, d, a, c}), placement.gpu({t, d, b, c}), why);
          needs.add(placement.gpu({t, d, b, c}), placement.gpu({t, d, a, c}), why);
        }
  }
  bool tp_allreduces = false, gradients = false, expert_gradients = false, embedding = false, cp_messages = false;
  for (int stage = 0; stage < costs.num_stages(); ++stage) {
    const StageWork& w = costs.stage(stage);
    tp_allreduces |= w.tp_allreduces_forward + w.tp_allreduces_backward + w.tp_reduce_scatters_forward +
                         w.tp_reduce_scatters_backward + w.tp_all_gathers_forward + w.tp_all_gathers_backward > 0;
    gradients |= w.gradient_bytes > 0;
    cp_messages |= sizes.cp > 1 && w.cp_forward_layers + w.cp_backward_layers > 0;
    expert_gradients |= w.expert_gradient_bytes > 0;
    embedding |= w.embedding_gradient_bytes > 0;
  }
  for (int r = 0; r < sizes.pp; ++r) {
    if (tp_allreduces && input.options.tp_comm != CommFidelity::Off)
      for (int d = 0; d < sizes.dp; ++d)
        for (int c = 0; c < sizes.cp; ++c) {
          std::vector<int> group;
          for (int t = 0; t < sizes.tp; ++t) group.push_back(placement.gpu({t, d, r, c}));
          needs.ring(group, fmt::format("the tensor-parallel collectives of pp rank {}", r));
        }
    if (cp_messages && input.options.cp_comm != CommFidelity::Off)
      for (int g : first_members(placement, r, "cp")) {
        // The ring's sends go to the next CP rank; Ulysses' all-to-alls between every pair.
        const std::vector<int> group = placement.group(g, "cp");
        const std::string why = fmt::format("the context-parallel attention of pp rank {}", r);
        if (!input.options.cp_all_to_all) {
          needs.ring(group, why);
          continue;
        }
        for (int i : group)
          for (int j : group) needs.add(i, j, why);
      }
    if (input.options.dp_comm == CommFidelity::Off) continue;
    for (int t = 0; t < sizes.tp; ++t) {
      const std::vector<int> replicas = placement.gradient_group(placement.gpu({t, 0, r, 0}));
      if (gradients) needs.ring(replicas, fmt::format("the data-parallel all-reduce of pp rank {}", r));
    }
    if (expert_gradients && costs.routing().ep > 0)
      for (int g : first_members(placement, r, "edp"))
        needs.ring(placement.group(g, "edp"), fmt::format("the expert gradients' all-reduce of pp rank {}", r));
  }
  if (input.options.dp_comm != CommFidelity::Off) {
    // DualPipe's two copies of a model stage sum their gradients; tied embeddings join the first and
    // the last stage.
    for (int stage = 0; stage < s.num_stages(); ++stage)
      for (int other = stage + 1; other < s.num_stages(); ++other)
        if (s.layout.model_stage[other] == s.layout.model_stage[stage] && s.rank_of(other) != s.rank_of(stage))
          for (int d = 0; d < sizes.dp; ++d)
            for (int c = 0; c < sizes.cp; ++c)
              for (int t = 0; t < sizes.tp; ++t)
                needs.ring({placement.gpu({t, d, std::min(s.rank_of(stage), s.rank_of(other)), c}),
                            placement.gpu({t, d, std::max(s.rank_of(stage), s.rank_of(other)), c})},
                           fmt::format("the gradient sum of model stage {}'s two copies", s.layout.model_stage[stage]));
    const int first = s.rank_of(0), last = s.rank_of(s.num_stages() - 1);
    if (embedding && first != last)
      for (int d = 0; d < sizes.dp; ++d)
        for (int c = 0; c < sizes.cp; ++c)
          for (int t = 0; t < sizes.tp; ++t)
            needs.ring({placement.gpu({t, d, first, c}), placement.gpu({t, d, last, c})}, "the tied-embedding all-reduce");
  }
  const ExpertRouting& routing = costs.routing();
  std::vector<int> node_of_gpu;
  for (const PlatformGpu& gpu : input.platform_gpus) node_of_gpu.push_back(gpu.node);
  if (routing.enabled() && routing.ep > 1 && input.options.ep_comm != CommFidelity::Off)
    for (int r = 0; r < sizes.pp; ++r)
      for (int g : first_members(placement, r, "ep")) {
        const std::string why = fmt::format("the expert-parallel all-to-alls of pp rank {}", r);
        const std::vector<int> members = placement.group(g, "ep");
        // The α-β model reads every pair's route, as pairwise flows run them; DeepEP's flows are a
        // subset: each member to its node's members and to its forwarders on the other nodes.
        if (input.options.ep_comm == CommFidelity::Analytic || input.options.ep_flows == EpFlows::Pairwise) {
          for (int i : members)
            for (int j : members) needs.add(i, j, why);
          continue;
        }
        const std::vector<MemberPlace> places = member_places(members, node_of_gpu);
        const std::vector<double> shares(members.size(), 1.0 / static_cast<double>(members.size()));
        for (bool to_experts : {true, false})
          for (const ExpertFlow& flow : deepep_flows(places, shares, 1, to_experts))
            needs.add(members[flow.src], members[flow.dst], why);
      }
  // The ETP groups' all-gathers and reduce-scatters around the experts (moe_op.h).
  if (routing.enabled() && sizes.etp > 1 && input.options.ep_comm != CommFidelity::Off)
    for (int r = 0; r < sizes.pp; ++r)
      for (int g : first_members(placement, r, "etp"))
        needs.ring(placement.group(g, "etp"), fmt::format("the expert-tensor-parallel collectives of pp rank {}", r));
  return needs;
}

}  // namespace

}  // namespace pipegrid::sim
