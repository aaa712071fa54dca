#include "sim/network/link_ledger.h"

#include <algorithm>

namespace pipegrid::sim {

LinkLedger::LinkLedger(double load_window, bool load_timeline, bool load_over_time, const FlowHorizon& flows)
    : window_(load_window), timeline_(load_timeline), over_time_(load_over_time), flows_(flows) {}

int LinkLedger::index_of(simgrid::s4u::Link* link) {
  auto [index, is_new] = index_.try_emplace(link, static_cast<int>(links_.size()));
  if (is_new) {
    links_.emplace_back();
    links_.back().link = link;
    links_.back().bandwidth = link->get_bandwidth();
    links_.back().load = LoadFold(window_, timeline_);
    links_.back().over_time = over_time_;
  }
  return index->second;
}

void LinkLedger::flow_started(const std::vector<int>& links, double bytes, double now) {
  for (int index : links) {
    LinkUsage& usage = links_[index];
    if (usage.active_flows++ == 0) usage.busy_since = now;
    usage.bytes += bytes;
    ++usage.flows;
  }
}

void LinkLedger::flow_ended(const std::vector<int>& links, double rate, double left, double carried, double start,
                            double end, bool finished) {
  for (int index : links) {
    LinkUsage& usage = links_[index];
    if (--usage.active_flows == 0) {
      usage.busy_time += end - usage.busy_since;
      if (over_time_) log_.busy(index, usage.busy_since, end);
    }
    change_rate(index, -rate, end);
    if (!finished) {
      usage.bytes -= std::max(0.0, left);
      --usage.flows;
    } else if (left > 0 && over_time_) {
      log_.piece(index, carried > 0 ? LoadPiece{end, end, left} : LoadPiece{start, end, left});
    }
  }
}

void LinkLedger::flow_dropped(const std::vector<int>& links, double rate, double at) {
  for (int index : links) change_rate(index, -rate, at);
}

void LinkLedger::add_rate_change(const std::vector<int>& links, double change) {
  for (int index : links) {
    LinkUsage& usage = links_[index];
    if (!usage.rate_changed) changed_.push_back(index);
    usage.rate_changed = true;
    usage.rate_change += change;
  }
}

void LinkLedger::apply_rate_changes(double at) {
  for (int index : changed_) {
    LinkUsage& usage = links_[index];
    change_rate(index, usage.rate_change, at);
    usage.rate_change = 0;
    usage.rate_changed = false;
  }
  changed_.clear();
}

// A link with no flow left has no rate, whatever the sum of the changes' roundings says.
void LinkLedger::change_rate(int index, double change, double at) {
  if (!over_time_) return;
  LinkUsage& usage = links_[index];
  if (usage.rate > 0 && at > usage.rate_since) log_.piece(index, {usage.rate_since, at, usage.rate * (at - usage.rate_since)});
  usage.rate = usage.active_flows == 0 ? 0 : std::max(0.0, usage.rate + change);
  usage.rate_since = at;
}

void LinkLedger::account_analytic(const std::vector<int>& links, double bytes, double start, double end) {
  for (int index : links) {
    LinkUsage& usage = links_[index];
    usage.bytes += bytes;
    usage.analytic_bytes += bytes;
    if (over_time_) log_.piece(index, {start, end, bytes});  // its busy period is the piece's
  }
  flush_if_full();
}

// The bound the fold needs (load_fold.h), once a link holds many unfolded pieces. A flow's piece on a
// link starts where the link's open piece does (rate_since) or at a sample (≥ last_sample), except
// the piece of a flow never seen to carry anything, spread over its life (≥ uncarried_since); an
// analytic piece starts at or after the clock when accounted, or after a hold. A busy period starts
// at busy_since while flows are on the link, else at a flow's start to come.
void LinkLedger::fold(LinkUsage& usage) {
  constexpr std::size_t kFoldAfter = 16;
  if (!over_time_ || usage.load.buffered() < kFoldAfter) return;
  double horizon = std::min({flows_.last_sample, flows_.uncarried_since, holds_.earliest()});
  if (usage.rate > 0) horizon = std::min(horizon, usage.rate_since);
  usage.load.fold(horizon, usage.active_flows > 0 ? std::min(horizon, usage.busy_since) : horizon);
}

void LinkLedger::flush() {
  log_.drain(links_.size(), [&](int index, const LoadLog::Entry* first, const LoadLog::Entry* last) {
    LinkUsage& usage = links_[index];
    for (const LoadLog::Entry* entry = first; entry != last; ++entry)
      if (entry->busy)
        usage.load.add_busy(entry->piece.start, entry->piece.end);
      else
        usage.load.add(entry->piece);
    fold(usage);
  });
}

void LinkLedger::close(double now, const std::vector<int>& mirror_of) {
  for (std::size_t index = 0; index < links_.size(); ++index) change_rate(static_cast<int>(index), 0, now);
  flush();
  // A mirror link carried its image's flows and nothing else: the same account.
  for (std::size_t link = 0; link < mirror_of.size(); ++link)
    if (const int link0 = mirror_of[link]; link0 != -1) {
      LinkUsage copy = links_[link0];
      copy.link = links_[link].link;
      copy.bandwidth = links_[link].bandwidth;
      links_[link] = std::move(copy);
    }
}

}  // namespace pipegrid::sim
