// The executor's data contract: what a simulation is given (SimulationInput, checked by the run layer
// before SimGrid starts: bad input never reaches the executor) and what it gives back
// (SimulationResult: per GPU, per link, and the deadlock or failure that ended it).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedules/schedule.h"
#include "sim/exec/exec_options.h"
#include "sim/exec/job_costs.h"
#include "sim/exec/placement.h"
#include "sim/exec/progress_line.h"
#include "sim/exec/trace_sink.h"
#include "sim/platform/dijkstra_routes.h"

namespace pipegrid::sim {

struct SimulationInput {
  std::string platform_file;
  std::vector<PlatformGpu> platform_gpus;  // as read before SimGrid starts, in platform order
  Schedule schedule;                       // validated and free of static deadlocks
  Placement placement;                     // the job's GPUs: the first of platform_gpus
  JobCosts costs;
  ExecOptions options;
  /// Where the trace goes as the run makes it (the output stage's writer), or nullptr: none.
  TraceSink* trace = nullptr;
  double link_window = 1e-3;   // --link-window: links.csv's peak and links_timeline.csv's windows, seconds
  bool link_timeline = false;  // --link-timeline: LinkReport::windows filled (for links_timeline.csv)
  /// The links' loads over time (LinkReport::over_time): kept only for a run that writes links.csv.
  bool link_load = true;
  /// Collectives between nodes run one ring per rail of their members (rails.h). Cleared by the run
  /// layer when a route the rails may need is missing (needed_routes.h: rail_routes).
  bool rails = true;
  /// False when the run layer could not know the platform's routes from the file (a <cluster>, zone
  /// routes): the executor then asks SimGrid for every needed route once the platform is loaded
  /// (simgrid_route_check.h) and decides `rails` the same way.
  bool routes_checked = true;
  /// The platform's <config> sets no network/model: pipegrid's default runs (simgrid_engine.h).
  bool default_network_model = false;
  /// Hosts with a speed profile: their GPUs compute as execs (compute_at_peak), and the CPU model
  /// is SimGrid's default rather than trace integration.
  std::vector<std::string> speed_profiled_hosts = {};
  /// Per link with a state profile, the dates it turns on (failure_watch.h, --on-failure wait).
  std::map<std::string, std::vector<double>> link_up_dates = {};
  /// Some host or link of the platform has a profile: what it does differs between rails, so the
  /// rails are not folded (rail_fold.h).
  bool time_varying_platform = false;
  /// The platform's one Dijkstra zone as a graph (platform/dijkstra_routes.h), or nullptr.
  std::shared_ptr<const platform::DijkstraRoutes> route_graph = nullptr;
  /// --progress: whether and when the run's progress line is shown on stderr (progress_line.h), and
  /// the contention-free makespan its ETA runs to (0: unknown).
  ProgressShow progress = ProgressShow::Never;
  double contention_free_makespan = 0;
};

/// Where a GPU's time went. Exposed communication is waiting while a transfer or collective it needs
/// is on the wire; waiting for a peer that has not sent (or not posted its receive) is idle time —
/// the bubble. idle = makespan − busy − exposed.
struct GpuAccount {
  double busy = 0;
  double p2p_exposed = 0;
  double tp_exposed = 0;
  double cp_exposed = 0;  // context parallelism's KV sends or all-to-alls beyond the attention they overlap
  double dp_exposed = 0;  // data-parallel and tied-embedding gradient all-reduces
  double a2a_exposed = 0;  // MoE all-to-all time the GPU waited for
  double a2a_hidden = 0;   // MoE all-to-all time under the other chunk's compute (overlapped pairs)
  double a2a_exposed_in_pairs = 0;  // the part of a2a_exposed that overlapped pairs could not hide
  double finish = 0;
  bool finished = false;
  std::size_t position = 0;  // the op the GPU is at, for a deadlock report
  double blocked_since = 0;  // when the GPU's compute last began to wait (for a message, a stream, the check)
  std::optional<std::size_t> comm_batch;  // the comm batch it waits at, if it does
  bool computing = false;                 // in the compute of the op at `position` (a failure report)
  std::vector<double> step_ends;          // when each training step's optimizer update ended
  double sync_wait = 0;  // waiting for the optimizer's check (the barrier, or post-validation's chain): idle
  double exposed() const { return p2p_exposed + tp_exposed + cp_exposed + dp_exposed + a2a_exposed; }
};

/// Per link, what the run put through it (link_report.h).
struct LinkReport {
  std::string name;
  double bandwidth = 0;  // as declared
  double latency = 0;
  std::string sharing_policy;
  double bytes = 0;           // flows' and analytic collectives'
  double analytic_bytes = 0;  // of which analytic collectives' (no contention)
  double busy_time = 0;       // with a flow or an analytic collective on it
  std::uint64_t flows = 0;
  /// Whether busy_time, peak_bytes, peak_start and windows were followed (SimulationInput::link_load):
  /// false, they are 0 and links.csv cannot be written.
  bool over_time = true;
  double window = 0;        // --link-window
  double peak_bytes = 0;    // in the busiest window, wherever it starts
  double peak_start = 0;    // where the busiest window starts
  /// Bytes per window k = [k·window, (k+1)·window), non-zero ones only; with --link-timeline only.
  std::vector<std::pair<std::int64_t, double>> windows;
  double mean_utilization_busy() const { return busy_time > 0 && bandwidth > 0 ? bytes / (bandwidth * busy_time) : 0; }
  double peak_utilization() const { return window > 0 && bandwidth > 0 ? peak_bytes / (bandwidth * window) : 0; }
};

struct GpuReport {
  std::string host;
  int node = 0;
  GpuCoordinates coordinates;
  GpuAccount account;
};

/// A deadlock or a platform failure that ended the run: its one line for stderr, and its file
/// (deadlock.json, failure.json) for the output stage to write.
struct RunEnding {
  std::string line;
  nlohmann::json file;
};

struct SimulationResult {
  double makespan = 0;
  double bubble_fraction = 0;  // 1 − total compute / (GPUs × makespan)
  /// When each training step ended: its last GPU's optimizer update.
  std::vector<double> step_ends;
  double first_step() const { return step_ends.empty() ? makespan : step_ends.front(); }
  /// The last step's duration: the steady state once the pipeline's steps overlap.
  double steady_step() const {
    return step_ends.size() < 2 ? first_step() : step_ends.back() - step_ends[step_ends.size() - 2];
  }
  std::vector<GpuReport> gpus;
  /// SimGrid actors that ran the ranks' programs: one per GPU, or per lockstep TP group (tp_lockstep.h).
  int actors = 0;
  /// SimGrid comms the run started, and whether the rails were folded (rail_fold.h).
  std::uint64_t simgrid_comms = 0;
  bool rail_fold = false;
  int rail_fold_mirror_links = 0;  // links whose account is their rail-0 image's (RailFold::mirror_of)
  int rail_fold_analytic_mirror_links = 0;  // and member 0's ring hop's (RailFold::analytic_mirror_of)
  /// Routes found by pipegrid's search (--route-search), and SimGrid's routes checked against it.
  std::uint64_t searched_routes = 0, routes_checked_against_search = 0;
  std::string rail_fold_why_not;  // the condition of rail_fold.h that failed, when not folded
  std::vector<LinkReport> links;  // every link of the platform, by name
  std::optional<RunEnding> deadlock;  // the run deadlocked (exit 3)
  std::optional<RunEnding> failure;   // a host or link went down and ended the job (exit 4)
};

}  // namespace pipegrid::sim
