// What the GPU actors of one simulation share: the plan (schedule, placement, costs, options), the
// network, and what each GPU has done so far.
#pragma once

#include <optional>
#include <utility>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "schedules/p2p_mode.h"
#include "schedules/results.h"
#include "schedules/schedule.h"
#include "sim/exec/collective_book.h"
#include "sim/exec/collectives.h"
#include "sim/exec/expert_flows.h"
#include "sim/exec/gradient_plan.h"
#include "sim/exec/job_costs.h"
#include "sim/exec/network.h"
#include "sim/exec/optimizer_step.h"
#include "sim/exec/placement.h"
#include "sim/exec/trace_writer.h"
#include "sim/exec/transfers.h"

namespace pipegrid::sim {

/// What a job does when a flow is cut by a link going down (SimulationOptions' --on-failure): fail
/// at once (exit 4), or resend the flow once the link is on again. A host going down always fails it.
enum class OnFailure { Fail, Wait };

struct ExecOptions {
  P2pMode p2p = P2pMode::Async;
  int p2p_channels = 1;  // per pair of GPUs and direction (Transfers::Channel)
  /// Gradient buckets reduced as the backward produces them (Megatron's --overlap-grad-reduce), or
  /// every gradient after the step; the bucket size in bytes (gradient_plan.h says where it applies).
  bool grad_overlap = true;
  double grad_bucket_bytes = 0;
  GradSyncOrder grad_sync_order = GradSyncOrder::Megatron;
  /// Training steps back to back, each ending with the optimizer (optimizer_step.h).
  int steps = 1;
  OptimizerSync optimizer_sync = OptimizerSync::AllReduce;
  /// The optimizer's update on one GPU of each pipeline rank (empty: none), and whether its check
  /// spans the whole job (the distributed optimizer) or one model-parallel group.
  std::vector<double> optimizer_seconds;
  bool sync_whole_job = false;
  /// The distributed optimizer (ZeRO-1, Megatron's --use-distributed-optimizer): gradients
  /// reduce-scattered rather than all-reduced, the updated parameters all-gathered after the update —
  /// behind the next step's forwards (--overlap-param-gather) or at once.
  bool distributed_optimizer = false;
  bool param_gather_overlap = true;
  CommFidelity tp_comm = CommFidelity::Analytic;
  CommFidelity dp_comm = CommFidelity::Flow;
  CommFidelity ep_comm = CommFidelity::Flow;  // the MoE all-to-alls
  EpFlows ep_flows = EpFlows::DeepEp;          // their flows, when they run as flows (expert_flows.h)
  /// The share of a GPU's SMs that communication kernels take while an overlapped F&B pair runs its
  /// all-to-alls under the other chunk's compute (DeepSeek-V3: 20 of 132); the pair's compute runs
  /// that much slower.
  double comm_sm_fraction = 0;
  /// NCCL's bus bandwidth in an all-reduce between GPUs of one node, as a share of the NVLink's
  /// (Network::set_nvlink_collective_efficiency); 1 keeps the links' full rate.
  double nccl_nvlink_efficiency = 1;
  OnFailure on_failure = OnFailure::Fail;
  /// --tp-lockstep auto: one actor per TP group where its members run in lockstep (tp_lockstep.h);
  /// off: one actor per GPU.
  bool tp_lockstep = true;
  /// --rail-fold auto: one SimGrid comm for the TP members' copies of a flow where that is exact
  /// (rail_fold.h); off: one per GPU.
  bool rail_fold = true;
  /// --route-search auto: folded, the routes from rails k > 0 found by pipegrid's copy of SimGrid's
  /// Dijkstra (platform/dijkstra_routes.h), rail 0's from SimGrid and checked against it; simgrid:
  /// every route from SimGrid.
  bool route_search = true;
  /// --simgrid-flows exec: each flow an Exec on its two hosts made by an actor per source GPU
  /// (flow_owners.h); comm: a host-to-host Comm of maestro's. The same network actions.
  bool exec_flows = true;
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
  double blocked_since = 0;  // when the GPU's compute last began to wait (for a message, a stream, the check)
  std::optional<std::size_t> comm_batch;  // the comm batch it waits at, if it does
  bool computing = false;                 // in the compute of the op at `position` (a failure report)
  std::vector<double> step_ends;          // when each training step's optimizer update ended
  double sync_wait = 0;  // waiting for the optimizer's check (the barrier, or post-validation's chain): idle
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
  /// Per job GPU: its host has a speed profile, so its compute runs as execs (compute_at_peak).
  std::vector<bool> varying_speed;
  StepBarrier step_barrier;  // the optimizer's all-reduce check
  CollectiveBook collectives;  // who entered which gradient collective, for a deadlock report
  /// Per GPU: when the flows of its collectives (sent or received) were on the wire, since the GPU last
  /// took them — what makes a wait for a collective exposed communication rather than idle time.
  /// Kept as their union, per GPU and for its tensor-parallel flows ([2g + 1]) apart from its gradient
  /// flows ([2g]): a ring's many flows merge into a few intervals, so the log stays small.
  std::vector<std::vector<FlowSpan>> collective_spans;
  /// The union of the GPU's tensor-parallel flows, or of its gradient flows, taken from the log.
  std::vector<FlowSpan> take_collective_spans(int gpu, bool tensor_parallel);
  /// The action that produces each backward result: I where the stage splits its backward, else B.
  std::vector<Kind> backward_kind;  // indexed by stage * m + micro-batch

  Job(const Schedule& schedule, const Placement& placement, const JobCosts& costs, ExecOptions options,
      std::vector<simgrid::s4u::Host*> hosts, Network& network, Transfers& transfers, TraceWriter& trace);

  /// The action a result comes from: F, or B / I.
  Action producer(const Result& result) const;
};

/// Computes for `seconds` at the GPU's declared speed: a wait of that long, or — where the host's speed
/// varies — an exec of seconds × speed FLOPs, which SimGrid slows with the host.
void compute_at_peak(const Job& job, int gpu, double seconds);

/// The body of an actor: runs the rank's program for one GPU or for the members of a lockstep TP
/// group (tp_lockstep.h), then their gradient reductions and the optimizer (gpu_run.h).
void run_gpu(Job& job, std::vector<int> gpus);

}  // namespace pipegrid::sim
