// The Network's link accounting: each link's load over time — its rate pieces and analytic pieces,
// logged and handed to its fold in batches (load_log.h, load_fold.h) — and the mirrors' accounts at
// the end. Flows and their sampling are in network.cc, routes in network_routes.cc.
#include "sim/exec/network.h"

#include <algorithm>
#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

// Closes the link's current piece at `at` and moves its rate by `change` from there; a link with no
// flow left has none, whatever the sum of the changes' roundings says.
void Network::change_rate(int index, double change, double at) {
  if (!load_over_time_) return;
  LinkUsage& usage = links_[index];
  if (usage.rate > 0 && at > usage.rate_since)
    load_log_.piece(index, {usage.rate_since, at, usage.rate * (at - usage.rate_since)});
  usage.rate = usage.active_flows == 0 ? 0 : std::max(0.0, usage.rate + change);
  usage.rate_since = at;
}

// The bound the fold needs (load_fold.h), once a link holds many unfolded pieces. A flow's piece on a
// link starts where the link's open piece does (rate_since) or at a sample (≥ last_sample_), except
// the piece of a flow never seen to carry anything, spread over its life (≥ uncarried_since_); an
// analytic piece starts at or after the clock when accounted, or after a hold. A busy period starts
// at busy_since while flows are on the link, else at a flow's start to come.
void Network::fold_load(LinkUsage& usage) {
  constexpr std::size_t kFoldAfter = 16;
  if (!load_over_time_ || usage.load.buffered() < kFoldAfter) return;
  double horizon = std::min({last_sample_, uncarried_since_, analytic_holds_.earliest()});
  if (usage.rate > 0) horizon = std::min(horizon, usage.rate_since);
  usage.load.fold(horizon, usage.active_flows > 0 ? std::min(horizon, usage.busy_since) : horizon);
}

void Network::flush_load() {
  load_log_.drain(links_.size(), [&](int index, const LoadLog::Entry* first, const LoadLog::Entry* last) {
    LinkUsage& usage = links_[index];
    for (const LoadLog::Entry* entry = first; entry != last; ++entry)
      if (entry->busy)
        usage.load.add_busy(entry->piece.start, entry->piece.end);
      else
        usage.load.add(entry->piece);
    fold_load(usage);
  });
}

void Network::close_load() {
  const double now = sg4::Engine::get_clock();
  for (std::size_t index = 0; index < links_.size(); ++index) change_rate(static_cast<int>(index), 0, now);
  flush_load();
  // A mirror link carried its rail-0 link's flows' images and nothing else: the same account.
  for (std::size_t link = 0; link < mirror_of_.size(); ++link)
    if (const int link0 = mirror_of_[link]; link0 != -1) {
      LinkUsage copy = links_[link0];
      copy.link = links_[link].link;
      copy.bandwidth = links_[link].bandwidth;
      links_[link] = std::move(copy);
    }
}

void Network::account_analytic(int src_gpu, int dst_gpu, double bytes, double start, double end) {
  if (bytes <= 0 || end <= start) return;
  const RouteEntry& entry = route_entry(src_gpu, dst_gpu);
  if (entry.analytic_mismatch != -1)
    throw std::logic_error(fmt::format("--rail-fold: an analytic collective from GPU {} to GPU {} crosses link {}, "
                                       "whose account mirrors another link's or is mirrored; --rail-fold off accounts "
                                       "every link",
                                       src_gpu, dst_gpu, links_[entry.analytic_mismatch].link->get_name()));
  for (int index : entry.analytic_accounted) {
    LinkUsage& usage = links_[index];
    usage.bytes += bytes;
    usage.analytic_bytes += bytes;
    if (load_over_time_) load_log_.piece(index, {start, end, bytes});  // its busy period is the piece's
  }
  if (load_log_.full()) flush_load();
}

}  // namespace pipegrid::sim
