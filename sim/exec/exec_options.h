// The executor's modelling choices, each one an option a user may doubt (docs/options.md): p2p
// semantics, collective fidelity, gradient overlap and order, the optimizer's check, failures, and
// how the same network actions are carried in SimGrid.
#pragma once

#include <vector>

#include "common/named.h"
#include "schedules/fsdp_op_cost.h"
#include "schedules/p2p_mode.h"
#include "sim/network/fidelity.h"

namespace pipegrid::sim {

/// What a job does when a flow is cut by a link going down (--on-failure): fail at once (exit 4), or
/// resend the flow once the link is on again. A host going down always fails it.
enum class OnFailure { Fail, Wait };
inline constexpr Named<OnFailure> kOnFailures[] = {{"fail", OnFailure::Fail}, {"wait", OnFailure::Wait}};

/// The order in which a GPU issues its step-end gradient collectives, each waited for before the next
/// (plan_gradient_reductions). Megatron's finalize_model_grads
/// (megatron/core/distributed/finalize_model_grads.py) runs finish_grad_sync — the data-parallel
/// reduction — then _allreduce_embedding_grads on every rank; the others show what another order does.
enum class GradSyncOrder {
  Megatron,        // data-parallel, then the tied embeddings, on every GPU
  EmbeddingFirst,  // the tied embeddings first on every GPU: another global order
  ByStage,         // the first stage's embeddings first, the last stage's data-parallel first: no cycle
  Crossed,         // embeddings first where pp + dp is even: a cycle of waits with pp 2, dp 2
};
inline constexpr Named<GradSyncOrder> kGradSyncOrders[] = {{"megatron", GradSyncOrder::Megatron},
                                                            {"embedding-first", GradSyncOrder::EmbeddingFirst},
                                                            {"by-stage", GradSyncOrder::ByStage},
                                                            {"crossed", GradSyncOrder::Crossed}};

/// The check before the optimizer's update (optimizer_step.h).
enum class OptimizerSync {
  AllReduce,       // Megatron's check: a barrier of the model-parallel group (the job, with the distributed optimizer)
  PostValidation,  // the zero-bubble paper's chains of partial checks
  None,            // no check: the pipeline alone (the contention-free engine's view)
};
inline constexpr Named<OptimizerSync> kOptimizerSyncs[] = {
    {"allreduce", OptimizerSync::AllReduce}, {"post-validation", OptimizerSync::PostValidation},
    {"none", OptimizerSync::None}};

/// The switches' names: --grad-overlap and --param-gather-overlap (on, off), --tp-lockstep and
/// --rail-fold (auto, off), --route-search (auto: pipegrid's search, simgrid), --simgrid-flows
/// (exec, comm).
inline constexpr Named<bool> kOnOff[] = {{"on", true}, {"off", false}};
inline constexpr Named<bool> kAutoOff[] = {{"auto", true}, {"off", false}};
inline constexpr Named<bool> kRouteSearches[] = {{"auto", true}, {"simgrid", false}};
inline constexpr Named<bool> kSimGridFlows[] = {{"exec", true}, {"comm", false}};

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
  /// ZeRO-3 (--zero 3: FSDP2 as torchtitan runs it): when each stage's units are all-gathered
  /// (schedules/fsdp_op_cost.h) and their gradients reduce-scattered unit by unit (gradient_plan.h);
  /// None below ZeRO-3.
  FsdpGathers fsdp = FsdpGathers::None;
  CommFidelity tp_comm = CommFidelity::Analytic;
  /// --tp-comm-overlap (Transformer Engine's userbuffers, with sequence parallelism): each TP
  /// reduce-scatter and all-gather under its GEMM (schedules/tp_op_cost.h); a GEMM paired with a
  /// reduce-scatter runs SMs / (SMs − --tp-comm-overlap-sms) slower.
  bool tp_comm_overlap = false;
  double tp_overlap_rs_slowdown = 1;
  /// Context parallelism's KV sends (the ring) or all-to-alls (Ulysses): analytic by default like the
  /// TP collectives they sit beside in every layer (schedules/cp_op_cost.h).
  CommFidelity cp_comm = CommFidelity::Analytic;
  bool cp_all_to_all = false;
  CommFidelity dp_comm = CommFidelity::Flow;
  CommFidelity ep_comm = CommFidelity::Flow;  // the MoE all-to-alls
  EpFlows ep_flows = EpFlows::DeepEp;          // their flows, when they run as flows (expert_flows.h)
  RingFlows ring_flows = RingFlows::Auto;      // ring collectives as flows: step by step or streamed
  /// The share of a GPU's SMs that communication kernels take while an overlapped F&B pair runs its
  /// all-to-alls under the other chunk's compute (DeepSeek-V3: 20 of 132); the pair's compute runs
  /// that much slower.
  double comm_sm_fraction = 0;
  /// NCCL's bus bandwidth in an all-reduce between GPUs of one node, as a share of the NVLink's
  /// (Network::set_nvlink_collective_efficiency); 1 keeps the links' full rate.
  double nccl_nvlink_efficiency = 1;
  OnFailure on_failure = OnFailure::Fail;
  /// --tp-lockstep auto: one actor per TP group where its members run in lockstep (tp_lockstep.h).
  bool tp_lockstep = true;
  /// --rail-fold auto: one SimGrid comm for the TP members' copies of a flow where exact (rail_fold.h).
  bool rail_fold = true;
  /// --route-search auto: folded, rails k > 0 routed by pipegrid's copy of SimGrid's Dijkstra
  /// (platform/dijkstra_routes.h), rail 0's from SimGrid and checked against it.
  bool route_search = true;
  /// --simgrid-flows exec: each flow an Exec made by an actor per source GPU (flow_owners.h); comm: a
  /// host-to-host Comm of maestro's. The same network actions.
  bool exec_flows = true;
};

}  // namespace pipegrid::sim
