#include "sim/exec/runtime_deadlock.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "common/number_format.h"

namespace pipegrid::sim {

namespace {

std::string host(const Job& job, int gpu) { return job.hosts[gpu]->get_name(); }

std::string what(const Job& job, const FlowInfo& flow) {
  switch (flow.kind) {
    case FlowKind::PipelineP2p:
      return to_string(job.producer(
          Result{flow.stage, flow.microbatch, flow.backward ? Flow::Backward : Flow::Forward}));
    case FlowKind::TensorAllReduce: return "its part of a tensor-parallel all-reduce";
    case FlowKind::DataAllReduce: return "its part of the data-parallel all-reduce";
    case FlowKind::EmbeddingAllReduce: return "its part of the embedding all-reduce";
    case FlowKind::StageCopyAllReduce: return "its part of the sum of a stage's two copies";
    case FlowKind::ExpertAllToAll: return "its part of an expert all-to-all";
    case FlowKind::OptimizerCheck: return "the optimizer's post-validation check";
  }
  return "?";
}

std::string wait_text(const Job& job, const RuntimeWait& w) {
  return fmt::format("waits for {} to {} {}", host(job, w.on.peer_gpu), w.on.sending ? "receive" : "send",
                     what(job, w.on.flow));
}

std::string op_at(const Job& job, const RuntimeWait& w) {
  const int rank = job.placement.coordinates(w.gpu).pp;
  if (w.batch) return to_string(job.schedule.comms[rank][*w.batch]);
  const auto& program = job.schedule.programs[rank];
  return w.position < program.size() ? to_string(program[w.position]) : "the end of its step";
}

}  // namespace

std::optional<RuntimeDeadlock> find_runtime_deadlock(const Job& job, double time) {
  RuntimeDeadlock deadlock;
  deadlock.time = time;
  std::map<int, const RuntimeWait*> by_gpu;
  for (int gpu = 0; gpu < static_cast<int>(job.accounts.size()); ++gpu)
    if (!job.accounts[gpu].finished)
      deadlock.blocked.push_back(
          {gpu, job.accounts[gpu].position, job.accounts[gpu].comm_batch, job.transfers.blocked_on(gpu)});
  if (deadlock.blocked.empty()) return std::nullopt;
  for (const RuntimeWait& w : deadlock.blocked)
    if (w.on.blocked) by_gpu[w.gpu] = &w;
  // Every GPU that did not finish waits for one peer: follow the waits until one repeats.
  std::vector<int> path;
  std::map<int, std::size_t> seen;
  int gpu = by_gpu.empty() ? -1 : by_gpu.begin()->first;
  while (gpu >= 0 && !seen.contains(gpu) && by_gpu.contains(gpu)) {
    seen[gpu] = path.size();
    path.push_back(gpu);
    gpu = by_gpu[gpu]->on.peer_gpu;
  }
  if (gpu >= 0 && seen.contains(gpu)) {
    std::vector<int> ring(path.begin() + static_cast<std::ptrdiff_t>(seen[gpu]), path.end());
    std::rotate(ring.begin(), std::min_element(ring.begin(), ring.end()), ring.end());
    for (int g : ring) deadlock.cycle.push_back(*by_gpu[g]);
  }
  return deadlock;
}

std::string RuntimeDeadlock::report(const Job& job) const {
  std::string text = fmt::format("deadlock at {} s:", format_number(time));
  if (cycle.empty()) {
    // Blocked without a message to wait for: on a comm stream's collective or the optimizer's check,
    // whose waits are not messages. Where the first few are says which.
    text += fmt::format(" {} GPUs blocked, no cycle of waits between messages found", blocked.size());
    for (std::size_t i = 0; i < blocked.size() && i < 4; ++i) {
      const RuntimeWait& w = blocked[i];
      const GpuCoordinates& c = job.placement.coordinates(w.gpu);
      text += fmt::format("\n  {} (tp {}, dp {}, pp {}) is blocked at {}{}", host(job, w.gpu), c.tp, c.dp, c.pp,
                          op_at(job, w), w.on.blocked ? ", " + wait_text(job, w) : "");
    }
    return text;
  }
  for (std::size_t i = 0; i < cycle.size(); ++i)
    text += fmt::format("{} {}", i == 0 ? fmt::format(" {}", host(job, cycle[i].gpu)) : ", which", wait_text(job, cycle[i]));
  for (const RuntimeWait& w : cycle) {
    const GpuCoordinates& c = job.placement.coordinates(w.gpu);
    text += fmt::format("\n  {} (tp {}, dp {}, pp {}) is blocked at {}", host(job, w.gpu), c.tp, c.dp, c.pp,
                        op_at(job, w));
  }
  if (blocked.size() > cycle.size()) text += fmt::format("\n  ({} GPUs blocked in all)", blocked.size());
  return text;
}

nlohmann::json RuntimeDeadlock::to_json(const Job& job) const {
  const auto entry = [&](const RuntimeWait& w) {
    const GpuCoordinates& c = job.placement.coordinates(w.gpu);
    return nlohmann::json{{"gpu", host(job, w.gpu)},
                          {"tp", c.tp},
                          {"dp", c.dp},
                          {"pp", c.pp},
                          {"position", w.position},
                          {"blocked_at", op_at(job, w)},
                          {"waiting_to", w.on.sending ? "send" : "receive"},
                          {"message", what(job, w.on.flow)},
                          {"peer", w.on.peer_gpu >= 0 ? host(job, w.on.peer_gpu) : ""}};
  };
  nlohmann::json json{{"time", time}, {"cycle", nlohmann::json::array()}, {"blocked", nlohmann::json::array()}};
  for (const RuntimeWait& w : cycle) json["cycle"].push_back(entry(w));
  for (const RuntimeWait& w : blocked) json["blocked"].push_back(entry(w));
  return json;
}

}  // namespace pipegrid::sim
