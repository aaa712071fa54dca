// What every link of the platform carried and when it was busy: the flows' bytes at the rates SimGrid
// gave them, the analytic collectives' bytes at their mean rate, folded into windows as the run goes
// (load_fold.h) through a log handed over link by link (load_log.h). docs/design.md, "What a link
// carried, and when".
#pragma once

#include <cstdint>
#include <simgrid/s4u/Link.hpp>
#include <unordered_map>
#include <vector>

#include "sim/network/analytic_holds.h"
#include "sim/network/load_fold.h"
#include "sim/network/load_log.h"

namespace pipegrid::sim {

/// Per link of the platform: what it carried, when, and for how long it was busy.
struct LinkUsage {
  simgrid::s4u::Link* link = nullptr;
  /// Its bandwidth as declared, read before the simulation starts (a bandwidth_file changes the
  /// link's current one later).
  double bandwidth = 0;
  double bytes = 0;           // by flows and by analytic collectives
  double analytic_bytes = 0;  // the part analytic collectives would have carried
  double busy_time = 0;       // time with at least one flow on it
  int active_flows = 0;
  double busy_since = 0;
  std::uint64_t flows = 0;
  /// What it carried over time, folded as the run goes; kept only when `over_time` (otherwise empty,
  /// and busy_time counts flows alone).
  LoadFold load;
  bool over_time = true;
  double rate = 0;  // its flows' bytes per second since rate_since (a piece not yet in `load`)
  double rate_since = 0;
  double rate_change = 0;  // the change of rate gathered at a sample, not yet applied
  bool rate_changed = false;
};

/// How early a flow's piece still to come may start: the flows' last sample of the clock, and the
/// start of the earliest flow not yet seen to carry anything (its bytes spread over its life).
struct FlowHorizon {
  double last_sample = 0;
  double uncarried_since = 0;
};

class LinkLedger {
 public:
  /// Loads are folded into windows of `load_window` seconds, the grid's bytes kept when
  /// `load_timeline`. Without `load_over_time` a link counts only its bytes, flows and flows' busy
  /// time (a run that writes no links.csv). `flows` is the network's, read when folding.
  LinkLedger(double load_window, bool load_timeline, bool load_over_time, const FlowHorizon& flows);

  /// The link's index, a new entry for a link not seen yet.
  int index_of(simgrid::s4u::Link* link);
  const std::vector<LinkUsage>& links() const { return links_; }
  bool over_time() const { return over_time_; }

  /// A flow of `bytes` starts on `links` now.
  void flow_started(const std::vector<int>& links, double bytes, double now);
  /// A flow at `rate` ends on `links` at `end`: finished, with `left` of its bytes not yet sampled
  /// (a piece at its end, or over its life [start, end] when it never carried anything), or cut
  /// (its unsampled bytes uncounted).
  void flow_ended(const std::vector<int>& links, double rate, double left, double carried, double start, double end,
                  bool finished);
  /// A flow at `rate` stops carrying on `links` at `at`, unheard (the job failed).
  void flow_dropped(const std::vector<int>& links, double rate, double at);
  /// A sample saw a flow's rate move by `change` on `links`; apply_rate_changes closes those links'
  /// pieces at `at` and moves their rates.
  void add_rate_change(const std::vector<int>& links, double change);
  void apply_rate_changes(double at);
  /// An analytic collective's hop carried `bytes` over [start, end] on `links`, busy meanwhile.
  void account_analytic(const std::vector<int>& links, double bytes, double start, double end);
  /// Holder `slot` (a GPU) will account analytic pieces starting at or after `from` until release.
  void hold_analytic(std::size_t slot, double from) { holds_.hold(slot, from); }
  void release_analytic(std::size_t slot) { holds_.release(slot); }
  /// Folds the logged pieces once the log holds a batch.
  void flush_if_full() {
    if (log_.full()) flush();
  }
  /// Ends every link's open piece now, folds what is logged, and gives each mirror its link's account
  /// (`mirror_of`: per link, the link whose account it takes, or -1).
  void close(double now, const std::vector<int>& mirror_of);

 private:
  // Closes the link's current piece at `at` and moves its rate by `change` from there.
  void change_rate(int index, double change, double at);
  void fold(LinkUsage& usage);
  void flush();

  std::vector<LinkUsage> links_;
  std::unordered_map<const simgrid::s4u::Link*, int> index_;
  LoadLog log_;
  AnalyticHolds holds_;
  std::vector<int> changed_;  // links whose rate changed at the last sample
  double window_;
  bool timeline_;
  bool over_time_;
  const FlowHorizon& flows_;
};

}  // namespace pipegrid::sim
