// What the GPU actors of one simulation share: the plan (schedule, placement, costs, options), the
// network, and what each GPU has done so far.
#pragma once

#include <optional>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "schedules/p2p_mode.h"
#include "schedules/results.h"
#include "schedules/schedule.h"
#include "sim/exec/collectives.h"
#include "sim/exec/job_costs.h"
#include "sim/exec/network.h"
#include "sim/exec/placement.h"
#include "sim/exec/trace_writer.h"
#include "sim/exec/transfers.h"

namespace pipegrid::sim {

struct ExecOptions {
  P2pMode p2p = P2pMode::Async;
  int p2p_channels = 1;  // per pair of GPUs and direction (Transfers::Channel)
  CommFidelity tp_comm = CommFidelity::Analytic;
  CommFidelity dp_comm = CommFidelity::Flow;
  CommFidelity ep_comm = CommFidelity::Flow;  // the MoE all-to-alls
  /// The share of a GPU's SMs that communication kernels take while an overlapped F&B pair runs its
  /// all-to-alls under the other chunk's compute (DeepSeek-V3: 20 of 132); the pair's compute runs
  /// that much slower.
  double comm_sm_fraction = 0;
};

/// Where a GPU's time went. Exposed communication is waiting while a transfer or collective it needs
/// is on the wire; waiting for a peer that has not sent (or not posted its receive) is idle time —
/// the bubble. idle = makespan − busy − exposed.
struct GpuAccount {
  double busy = 0;
  double p2p_exposed = 0;
  double tp_exposed = 0;
  double dp_exposed = 0;  // data-parallel and tied-embedding gradient all-reduces
  double a2a_exposed = 0;  // MoE all-to-all time the GPU waited for
  double a2a_hidden = 0;   // MoE all-to-all time under the other chunk's compute (overlapped pairs)
  double a2a_exposed_in_pairs = 0;  // the part of a2a_exposed that overlapped pairs could not hide
  double finish = 0;
  bool finished = false;
  std::size_t position = 0;  // the op the GPU is at, for a deadlock report
  std::optional<std::size_t> comm_batch;  // the comm batch it waits at, if it does
  double exposed() const { return p2p_exposed + tp_exposed + dp_exposed + a2a_exposed; }
};

struct Job {
  const Schedule& schedule;
  const Placement& placement;
  const JobCosts& costs;
  ExecOptions options;
  std::vector<simgrid::s4u::Host*> hosts;  // of each job GPU
  std::vector<int> node_of_gpu;            // the platform node of each job GPU
  Network& network;
  Transfers& transfers;
  TraceWriter& trace;
  ResultIndex results;
  std::vector<GpuAccount> accounts;
  /// The action that produces each backward result: I where the stage splits its backward, else B.
  std::vector<Kind> backward_kind;  // indexed by stage * m + micro-batch

  Job(const Schedule& schedule, const Placement& placement, const JobCosts& costs, ExecOptions options,
      std::vector<simgrid::s4u::Host*> hosts, Network& network, Transfers& transfers, TraceWriter& trace);

  /// The action a result comes from: F, or B / I.
  Action producer(const Result& result) const;
};

/// The body of GPU `gpu`'s actor: runs its rank's program, then its gradient all-reduces.
void run_gpu(Job& job, int gpu);

}  // namespace pipegrid::sim
