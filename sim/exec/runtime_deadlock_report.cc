// The executor's deadlock as text (the report printed with exit code 3) and as deadlock.json, in the
// format the three engines share (docs/outputs.md, "deadlock.json").
#include <fmt/format.h>
#include <set>
#include <tuple>

#include "common/number_format.h"
#include "sim/exec/runtime_deadlock.h"

namespace pipegrid::sim {

namespace {

std::string host(const GpuHosts& gpus, int gpu) { return gpus.hosts[gpu]->get_name(); }

std::string where(const JobPlan& plan, const GpuHosts& gpus, const RuntimeWait& w) {
  const GpuCoordinates& c = plan.placement.coordinates(w.gpu);
  return fmt::format("\n  {} (tp {}, dp {}, pp {}) is blocked at {}", host(gpus, w.gpu), c.tp, c.dp, c.pp, w.blocked_at);
}

}  // namespace

std::string RuntimeDeadlock::chain(const GpuHosts& gpus) const {
  if (cycle.empty())
    return fmt::format("{} GPUs blocked, no cycle of waits between messages found", blocked.size());
  std::string text;
  for (std::size_t i = 0; i < cycle.size(); ++i)
    text += fmt::format("{} {}", i == 0 ? host(gpus, cycle[i].gpu) : ", which",
                        cycle[i].edges[cycle_edge[i]].text);
  if (open) text += fmt::format("; {} has finished its step", host(gpus, cycle.back().edges[cycle_edge.back()].to_gpu));
  return text;
}

DeadlockHint RuntimeDeadlock::hint(const JobPlan& plan, const GpuHosts& gpus) const {
  std::vector<WaitKind> waits;
  for (std::size_t i = 0; i < cycle.size(); ++i) waits.push_back(cycle[i].edges[cycle_edge[i]].kind);
  if (cycle.empty())
    for (const RuntimeWait& w : blocked)
      if (!w.edges.empty()) waits.push_back(w.edges.front().kind);
  DeadlockHint hint = deadlock_hint(waits, open);
  if (hint.shape == DeadlockShape::CollectiveOrder && plan.options.grad_sync_order != GradSyncOrder::Megatron)
    hint.text += "; here: --grad-sync-order megatron";
  if (open) {
    const RuntimeEdge& last = cycle.back().edges[cycle_edge.back()];
    hint.text += fmt::format("; here: {} (pp {}) ended its step without {}", host(gpus, last.to_gpu),
                             plan.placement.coordinates(last.to_gpu).pp, last.action);
  }
  return hint;
}

std::string RuntimeDeadlock::report(const JobPlan& plan, const GpuHosts& gpus) const {
  std::string text = fmt::format("deadlock at {} s: {}", format_number(time), chain(gpus));
  if (cycle.empty()) {
    // Blocked without a wait the executor can name: on the optimizer's check, say. Where the first
    // few are says which.
    for (std::size_t i = 0; i < blocked.size() && i < 4; ++i)
      text += where(plan, gpus, blocked[i]) + (blocked[i].edges.empty() ? "" : ", " + blocked[i].edges.front().text);
  } else {
    for (const RuntimeWait& w : cycle) text += where(plan, gpus, w);
    if (blocked.size() > cycle.size()) text += fmt::format("\n  ({} GPUs blocked in all)", blocked.size());
  }
  return text + "\nfix: " + hint(plan, gpus).text;
}

nlohmann::json RuntimeDeadlock::to_json(const JobPlan& plan, const GpuHosts& gpus) const {
  const auto entry = [&](const RuntimeWait& w, std::size_t edge) {
    const GpuCoordinates& c = plan.placement.coordinates(w.gpu);
    nlohmann::json waits_for = nullptr;
    if (edge < w.edges.size()) {
      const RuntimeEdge& e = w.edges[edge];
      waits_for = {{"rank", plan.placement.coordinates(e.to_gpu).pp},
                   {"gpu", host(gpus, e.to_gpu)},
                   {"action", e.action},
                   {"what", wait_kind_name(e.kind)}};
    }
    return nlohmann::json{{"rank", c.pp},
                          {"gpu", host(gpus, w.gpu)},
                          {"tp", c.tp},
                          {"dp", c.dp},
                          {"pp", c.pp},
                          {"position", w.position},
                          {"blocked_at", w.blocked_at},
                          {"blocked_since", w.since},
                          {"waits_for", waits_for},
                          {"waiting_to", w.on.sending ? "send" : "receive"},
                          {"message", w.message},
                          {"peer", w.on.peer_gpu >= 0 ? host(gpus, w.on.peer_gpu) : ""}};
  };
  const DeadlockHint h = hint(plan, gpus);
  nlohmann::json json{{"engine", "executor"},
                      {"time", time},
                      {"chain", chain(gpus)},
                      {"cycle", nlohmann::json::array()},
                      {"open", open},
                      {"blocked", nlohmann::json::array()},
                      {"wait_for", {{"edges", nlohmann::json::array()}, {"gpu_edges", nlohmann::json::array()}}},
                      {"hint", {{"shape", deadlock_shape_name(h.shape)}, {"text", h.text}}}};
  for (std::size_t i = 0; i < cycle.size(); ++i) json["cycle"].push_back(entry(cycle[i], cycle_edge[i]));
  // The wait-for graph between pipeline ranks: every wait of every blocked GPU, once per label; and
  // between GPUs (where a cycle through replicas of one rank shows): the blocked GPUs in GPU order,
  // each GPU's waits in its order (the first is the one a cycle follows first), once per label.
  std::set<std::tuple<int, int, std::string>> edges, gpu_edges;
  for (const RuntimeWait& w : blocked) {
    json["blocked"].push_back(entry(w, 0));
    for (const RuntimeEdge& e : w.edges) {
      edges.insert({plan.placement.coordinates(w.gpu).pp, plan.placement.coordinates(e.to_gpu).pp, e.action});
      if (gpu_edges.insert({w.gpu, e.to_gpu, e.action}).second)
        json["wait_for"]["gpu_edges"].push_back(
            {{"from", host(gpus, w.gpu)}, {"to", host(gpus, e.to_gpu)}, {"label", e.action}});
    }
  }
  for (const auto& [from, to, label] : edges)
    json["wait_for"]["edges"].push_back({{"from", from}, {"to", to}, {"label", label}});
  return json;
}

}  // namespace pipegrid::sim
