#include "sim/exec/runtime_deadlock.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace pipegrid::sim {

namespace {

std::string host(const GpuHosts& gpus, int gpu) { return gpus.hosts[gpu]->get_name(); }

std::string what(const JobPlan& plan, const FlowInfo& flow) {
  switch (flow.kind) {
    case FlowKind::PipelineP2p:
      return to_string(plan.producer(
          Result{flow.stage, flow.microbatch, flow.backward ? Flow::Backward : Flow::Forward}));
    case FlowKind::TensorAllReduce: return "its part of a tensor-parallel all-reduce";
    case FlowKind::DataAllReduce: return "its part of the data-parallel all-reduce";
    case FlowKind::EmbeddingAllReduce: return "its part of the embedding all-reduce";
    case FlowKind::StageCopyAllReduce: return "its part of the sum of a stage's two copies";
    case FlowKind::ExpertAllToAll: return "its part of an expert all-to-all";
    case FlowKind::ExpertTensorCollective: return "its part of an expert-tensor-parallel all-gather or reduce-scatter";
    case FlowKind::OptimizerCheck: return "the optimizer's post-validation check";
    case FlowKind::ContextParallel: return "its part of the context-parallel attention";
  }
  return "?";
}

// The awaited message as one word, for deadlock.json and the wait-for graph's labels.
std::string action_of(const JobPlan& plan, const FlowInfo& flow) {
  return flow.kind == FlowKind::PipelineP2p ? what(plan, flow) : std::string(flow_kind_name(flow.kind));
}

// A gradient collective in words (gradient_plan.h names them as the trace does).
std::string collective_name(std::string_view kind) {
  if (kind == "dp-allreduce") return "the data-parallel all-reduce";
  if (kind == "dp-reduce-scatter") return "the data-parallel reduce-scatter";
  if (kind == "dp-all-gather") return "the parameter all-gather";
  if (kind == "expert-dp-allreduce") return "the experts' data-parallel all-reduce";
  if (kind == "embedding-allreduce") return "the embedding all-reduce";
  return fmt::format("the {}", kind);
}

RuntimeEdge message_edge(const JobPlan& plan, const GpuHosts& gpus, const BlockedOn& on) {
  // A rendezvous sender waits for its peer's receive; a receiver for its peer's send.
  return {on.peer_gpu, on.sending ? WaitKind::PeerReceive : WaitKind::PeerSend, action_of(plan, on.flow),
          fmt::format("waits for {} to {} {}", host(gpus, on.peer_gpu), on.sending ? "receive" : "send",
                      what(plan, on.flow))};
}

std::string op_at(const JobPlan& plan, const RuntimeWait& w) {
  const int rank = plan.placement.coordinates(w.gpu).pp;
  if (w.batch) return to_string(plan.schedule.comms[rank][*w.batch]);
  const auto& program = plan.schedule.programs[rank];
  return w.position < program.size() ? to_string(program[w.position]) : "the end of its step";
}

// What the GPU waits for: its compute's message first (where the GPU itself is stuck), then the
// members that never entered a collective it is inside (NCCL's collective completes on no member
// before every member has entered it), else a comm stream's message.
std::vector<RuntimeEdge> edges_of(const JobPlan& plan, const GpuHosts& gpus, const JobRecord& record,
                                  const Transfers& transfers, int gpu, std::string& blocked_at) {
  std::vector<RuntimeEdge> edges;
  if (const BlockedOn& on = transfers.compute_blocked_on(gpu); on.blocked) edges.push_back(message_edge(plan, gpus, on));
  for (const OpenCollective& c : record.collectives.open(gpu))
    for (int member : record.collectives.missing(c)) {
      if (edges.empty()) blocked_at = c.kind;
      edges.push_back({member, WaitKind::Collective, std::string(c.kind),
                       fmt::format("waits for {} to enter {}", host(gpus, member), collective_name(c.kind))});
    }
  if (const BlockedOn& on = transfers.blocked_on(gpu); edges.empty() && on.blocked)
    edges.push_back(message_edge(plan, gpus, on));
  return edges;
}

}  // namespace

std::optional<RuntimeDeadlock> find_runtime_deadlock(const JobPlan& plan, const GpuHosts& gpus,
                                                     const JobRecord& record, const Transfers& transfers,
                                                     double time) {
  RuntimeDeadlock deadlock;
  deadlock.time = time;
  std::map<int, std::size_t> index;  // blocked GPU → its place in `blocked`
  for (int gpu = 0; gpu < static_cast<int>(record.accounts.size()); ++gpu) {
    const GpuAccount& account = record.accounts[gpu];
    if (account.finished) continue;
    RuntimeWait w{gpu, account.position, account.comm_batch, transfers.blocked_on(gpu), account.blocked_since,
                  {}, "", ""};
    w.blocked_at = op_at(plan, w);
    w.edges = edges_of(plan, gpus, record, transfers, gpu, w.blocked_at);
    w.message = what(plan, w.on.flow);
    index[gpu] = deadlock.blocked.size();
    deadlock.blocked.push_back(std::move(w));
  }
  if (deadlock.blocked.empty()) return std::nullopt;
  const auto wait_of = [&](int gpu) -> const RuntimeWait& { return deadlock.blocked[index.at(gpu)]; };

  // A depth-first search over the waits, from the lowest GPU and each wait's first edge first: the
  // first wait that leads back to a GPU on the current path closes the cycle.
  std::vector<int> state(record.accounts.size(), 0);  // 0 unseen, 1 on the path, 2 done
  std::vector<std::pair<int, std::size_t>> path;     // GPU, next edge to try
  std::vector<int> ring, ring_edges;
  for (const auto& [start, unused] : index) {
    if (!ring.empty()) break;
    if (state[start] != 0) continue;
    path.push_back({start, 0});
    state[start] = 1;
    while (!path.empty() && ring.empty()) {
      auto& [gpu, next] = path.back();
      const std::vector<RuntimeEdge>& edges = wait_of(gpu).edges;
      if (next == edges.size()) {
        state[gpu] = 2;
        path.pop_back();
        continue;
      }
      const int to = edges[next++].to_gpu;
      if (!index.contains(to)) continue;
      if (state[to] == 1) {
        auto from = std::find_if(path.begin(), path.end(), [&](const auto& p) { return p.first == to; });
        for (; from != path.end(); ++from) {
          ring.push_back(from->first);
          ring_edges.push_back(static_cast<int>(from->second) - 1);
        }
      } else if (state[to] == 0) {
        state[to] = 1;
        path.push_back({to, 0});
      }
    }
    path.clear();
  }
  if (!ring.empty()) {
    const auto lowest = std::min_element(ring.begin(), ring.end()) - ring.begin();
    std::rotate(ring.begin(), ring.begin() + lowest, ring.end());
    std::rotate(ring_edges.begin(), ring_edges.begin() + lowest, ring_edges.end());
    for (int g : ring) deadlock.cycle.push_back(wait_of(g));
    deadlock.cycle_edge = ring_edges;
    return deadlock;
  }
  // No cycle: follow the first waits from the lowest GPU that waits; ending at a GPU that finished
  // its step, they are an open chain (it will never send what is awaited).
  for (const RuntimeWait& w : deadlock.blocked) {
    if (w.edges.empty()) continue;
    std::vector<bool> seen(record.accounts.size(), false);
    int gpu = w.gpu;
    while (index.contains(gpu) && !seen[gpu] && !wait_of(gpu).edges.empty()) {
      seen[gpu] = true;
      deadlock.cycle.push_back(wait_of(gpu));
      deadlock.cycle_edge.push_back(0);
      gpu = wait_of(gpu).edges.front().to_gpu;
    }
    deadlock.open = gpu >= 0 && record.accounts[gpu].finished;
    if (!deadlock.open) {
      deadlock.cycle.clear();
      deadlock.cycle_edge.clear();
    }
    break;
  }
  return deadlock;
}

}  // namespace pipegrid::sim
