// A resource of the platform going down during the run (a host's or link's state profile): the job
// fails — exit 4, one line, failure.json — or, for a link under --on-failure wait, resends the flows it
// cut once the link is on again. SimGrid 3.32's failure semantics (examples/cpp/platform-failures): a
// host turned off kills the actors on it; a flow over a link that goes down, or that starts over a link
// that is down, fails.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/job.h"

namespace pipegrid::sim {

struct PlatformFailure {
  std::string resource;
  std::string kind;  // "host" or "link"
  double down_since = 0;  // when the resource went down
  double time = 0;        // when the job failed: a host's at once, a link's when a flow needs it
  bool never_back = false;  // --on-failure wait, but the link's profile never turns it on again
  std::vector<std::string> cut;  // what was running or waiting on the resource, one entry per GPU op or flow
  nlohmann::json gpus;           // per job GPU, its state at the failure
  /// The one line: resource, time, what was cut (the first few of them).
  std::string line() const;
  nlohmann::json to_json() const;
};

/// Watches the job's hosts and the flows of the job. One per simulation, alive while the engine runs.
class FailureWatch {
 public:
  /// `link_up_dates`: per link with a state profile, the dates it turns on (for --on-failure wait).
  FailureWatch(const JobPlan& plan, const GpuHosts& gpus, const JobRecord& record, Network& network,
               Transfers& transfers, std::map<std::string, std::vector<double>> link_up_dates);
  ~FailureWatch();
  FailureWatch(const FailureWatch&) = delete;
  FailureWatch& operator=(const FailureWatch&) = delete;

  const std::optional<PlatformFailure>& failure() const { return failure_; }

  void host_turned_off(const simgrid::s4u::Host& host);

  /// Once the platform is sealed, before any actor starts: a job host or a profiled link that is off
  /// already (its state profile says 0 at t = 0) went down at the start, which SimGrid applied before
  /// the watch could hear it. A job host off fails the job at once: no actor can start on it.
  void notice_resources_off_at_start();

 private:
  void flow_failed(const FlowInfo& flow, const std::vector<int>& route);
  // The first link of the route that is down, or nullptr.
  simgrid::s4u::Link* down_link(const std::vector<int>& route) const;
  void resend_when_up(FlowInfo flow, std::vector<int> route);
  // Ends the job: records the failure (or adds to the one at this instant) and kills every actor.
  void fail(const std::string& resource, const std::string& kind, std::string cut, bool never_back = false);
  std::string op_text(int gpu) const;
  std::string flow_text(const FlowInfo& flow) const;

  const JobPlan& plan_;
  const GpuHosts& gpus_;
  const JobRecord& record_;
  Network& network_;
  Transfers& transfers_;
  std::map<std::string, std::vector<double>> link_up_dates_;
  std::optional<PlatformFailure> failure_;
  std::map<std::string, double> link_down_since_;  // the last time each link went down
};

}  // namespace pipegrid::sim
