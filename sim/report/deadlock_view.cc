#include "sim/report/deadlock_view.h"

#include <cmath>
#include <fmt/format.h>
#include <map>

#include "common/input_error.h"
#include "schedules/deadlock_hint.h"

namespace pipegrid::report {

namespace {

using nlohmann::json;

double finite(const json& value, const char* key) {
  const double x = value.get<double>();
  if (!std::isfinite(x)) throw InputError(fmt::format("{}: not a finite number", key));
  return x;
}

std::string text_of(const json& entry, const char* key) {
  if (!entry.contains(key) || entry[key].is_null()) return "";
  return entry[key].is_string() ? entry[key].get<std::string>() : entry[key].dump();
}

int int_of(const json& entry, const char* key) {
  if (!entry.contains(key) || !entry[key].is_number_integer()) return -1;
  const auto value = entry[key].get<std::int64_t>();
  return value >= 0 && value <= 1'000'000 ? static_cast<int>(value) : -1;
}

DeadlockWait wait_of(const json& entry) {
  DeadlockWait w;
  w.rank = entry.contains("rank") ? int_of(entry, "rank") : int_of(entry, "pp");
  w.gpu = text_of(entry, "gpu");
  w.blocked_at = text_of(entry, "blocked_at");
  if (entry.contains("blocked_since")) w.blocked_since = finite(entry["blocked_since"], "blocked_since");
  if (entry.contains("waits_for") && entry["waits_for"].is_object()) {
    const json& on = entry["waits_for"];
    w.waits_for = int_of(on, "rank");
    w.action = text_of(on, "action");
    w.what = text_of(on, "what");
  }
  // The executor's keys: it waits to send (the peer must receive) or to receive (the peer must send).
  if (w.action.empty()) w.action = text_of(entry, "message");
  if (w.what.empty() && entry.contains("waiting_to"))
    w.what = text_of(entry, "waiting_to") == "send" ? "receive" : "send";
  w.waits_for_gpu = text_of(entry, "peer");
  return w;
}

WaitKind kind_of(const std::string& what) {
  if (what == "compute") return WaitKind::Compute;
  if (what == "receive") return WaitKind::PeerReceive;
  if (what == "collective") return WaitKind::Collective;
  return WaitKind::PeerSend;
}

// "gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1B0": the executor's wording
// (sim/exec/runtime_deadlock.cc).
std::string chain_of(const DeadlockView& d) {
  std::string chain;
  for (std::size_t i = 0; i < d.cycle.size(); ++i) {
    const DeadlockWait& w = d.cycle[i];
    std::string peer = w.waits_for_gpu;
    if (peer.empty() && i + 1 < d.cycle.size()) peer = d.cycle[i + 1].gpu;
    if (peer.empty() && !d.open && !d.cycle.empty()) peer = d.cycle.front().gpu;
    if (peer.empty() && w.waits_for >= 0) peer = fmt::format("rank {}", w.waits_for);
    const std::string self = w.gpu.empty() ? fmt::format("rank {}", w.rank) : w.gpu;
    chain += i == 0 ? self + " waits for " : ", which waits for ";
    chain += fmt::format("{} to {} {}", peer.empty() ? "a peer" : peer, w.what.empty() ? "send" : w.what, w.action);
  }
  return chain;
}

}  // namespace

std::string wait_name(const DeadlockWait& wait) {
  if (wait.gpu.empty()) return fmt::format("rank {}", wait.rank);
  if (wait.rank < 0 || wait.gpu == fmt::format("rank {}", wait.rank)) return wait.gpu;
  return fmt::format("rank {} ({})", wait.rank, wait.gpu);
}

DeadlockView read_deadlock(const json& j) {
  if (!j.is_object() || !j.contains("time") || !j.contains("cycle") || !j["cycle"].is_array())
    throw InputError("expected an object with 'time' and a 'cycle' array");
  DeadlockView d;
  d.engine = text_of(j, "engine");
  d.time = finite(j["time"], "time");
  d.open = j.contains("open") && j["open"].is_boolean() && j["open"].get<bool>();
  for (const json& entry : j["cycle"]) d.cycle.push_back(wait_of(entry));
  if (j.contains("blocked") && j["blocked"].is_array())
    for (const json& entry : j["blocked"]) d.blocked.push_back(wait_of(entry));
  // The old format names peers by host: their ranks come from the entries that name those hosts.
  std::map<std::string, int> rank_of_gpu;
  for (const auto* list : {&d.blocked, &d.cycle})
    for (const DeadlockWait& w : *list)
      if (!w.gpu.empty() && w.rank >= 0) rank_of_gpu.emplace(w.gpu, w.rank);
  for (auto* list : {&d.blocked, &d.cycle})
    for (DeadlockWait& w : *list)
      if (w.waits_for < 0 && rank_of_gpu.contains(w.waits_for_gpu)) w.waits_for = rank_of_gpu[w.waits_for_gpu];
  // cycle[i] waits for cycle[i + 1], the last for the first (spec §1), unless the chain is open.
  for (std::size_t i = 0; i < d.cycle.size(); ++i)
    if (d.cycle[i].waits_for < 0 && (i + 1 < d.cycle.size() || !d.open))
      d.cycle[i].waits_for = d.cycle[(i + 1) % d.cycle.size()].rank;
  d.chain = j.contains("chain") && j["chain"].is_string() ? j["chain"].get<std::string>() : chain_of(d);
  if (j.contains("hint") && j["hint"].is_object()) {
    d.hint_shape = text_of(j["hint"], "shape");
    d.hint_text = text_of(j["hint"], "text");
  }
  if (d.hint_text.empty() && !d.cycle.empty()) {
    std::vector<WaitKind> kinds;
    for (const DeadlockWait& w : d.cycle) kinds.push_back(kind_of(w.what));
    const DeadlockHint hint = deadlock_hint(kinds, d.open);
    d.hint_shape = std::string(deadlock_shape_name(hint.shape));
    d.hint_text = hint.text;
  }
  return d;
}

}  // namespace pipegrid::report
