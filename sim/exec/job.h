// One simulation's job, by role: what runs (JobPlan, read-only), the GPUs it runs on (GpuHosts), what
// they have done so far (JobRecord), and — for the actors that run the ranks' programs — all of these
// with the network, the messages and the trace (Job). A function takes the roles it reads.
#pragma once

#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "schedules/results.h"
#include "schedules/schedule.h"
#include "sim/exec/collective_book.h"
#include "sim/exec/exec_options.h"
#include "sim/exec/job_costs.h"
#include "sim/exec/optimizer_step.h"
#include "sim/exec/placement.h"
#include "sim/exec/simulation_io.h"
#include "sim/exec/trace_sink.h"
#include "sim/network/network.h"
#include "sim/network/transfers.h"

namespace pipegrid::sim {

/// What runs: every rank's program, where each GPU sits in the job, what each op costs, and the options.
struct JobPlan {
  const Schedule& schedule;
  const Placement& placement;
  const JobCosts& costs;
  const ExecOptions& options;
  ResultIndex results;
  /// The action that produces each backward result: I where the stage splits its backward, else B.
  std::vector<Kind> backward_kind;  // indexed by stage * m + micro-batch
  /// Per virtual stage, the micro-batch of its first forward (ZeRO-3 gathers there once per step).
  std::vector<int> first_forward;

  JobPlan(const Schedule& schedule, const Placement& placement, const JobCosts& costs, const ExecOptions& options);
  /// The action a result comes from: F, or B / I.
  Action producer(const Result& result) const;
};

/// The platform's side of the job's GPUs.
struct GpuHosts {
  std::vector<simgrid::s4u::Host*> hosts;  // of each job GPU
  std::vector<int> node_of_gpu;            // the platform node of each job GPU
  /// Per job GPU: its host has a speed profile, so its compute runs as execs (compute_at_peak).
  std::vector<bool> varying_speed;
};

/// Computes for `seconds` at the GPU's declared speed: a wait of that long, or — where the host's speed
/// varies — an exec of seconds × speed FLOPs, which SimGrid slows with the host.
void compute_at_peak(const GpuHosts& gpus, int gpu, double seconds);

/// What the job's GPUs have done so far.
struct JobRecord {
  std::vector<GpuAccount> accounts;
  StepBarrier step_barrier;    // the optimizer's all-reduce check
  CollectiveBook collectives;  // who entered which gradient collective, for a deadlock report
  /// Per GPU: when the flows of its collectives were on the wire since the GPU last took them — what
  /// makes a wait for a collective exposed communication rather than idle time. Kept as their union,
  /// its tensor-parallel flows ([2g + 1]) apart from its gradient flows ([2g]).
  std::vector<std::vector<FlowSpan>> collective_spans;

  /// Listens to `network` for the collectives' flows.
  JobRecord(int gpus, Network& network);
  /// The union of the GPU's tensor-parallel flows, or of its gradient flows, taken from the log.
  std::vector<FlowSpan> take_collective_spans(int gpu, bool tensor_parallel);
};

/// Everything an actor running a rank's program uses.
struct Job {
  const JobPlan& plan;
  const GpuHosts& gpus;
  Network& network;
  Transfers& transfers;
  TraceSink& trace;
  JobRecord& record;
};

/// The body of an actor: runs the rank's program for one GPU or for the members of a lockstep TP
/// group (tp_lockstep.h), then their gradient reductions and the optimizer (gpu_run.h).
void run_gpu(Job& job, std::vector<int> gpus);

}  // namespace pipegrid::sim
