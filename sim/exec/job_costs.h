// What every action of a job costs on one GPU — compute FLOPs, bytes to the neighbour stages, the
// tensor-parallel all-reduces inside it, the gradients to all-reduce after the step — whatever the
// source: explicit times (as `pipegrid schedule` takes them) or a transformer model.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "schedules/action.h"
#include "schedules/action_times.h"
#include "schedules/tp_op_cost.h"
#include "sim/model/compute_model.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::sim {

/// A mixture-of-experts stage's four phases per micro-batch on one GPU (model::ComputeWork's, as work
/// at the reference speed; bytes from model::MoeStageCost).
struct MoeWork {
  int moe_layers = 0;
  double non_expert[3] = {0, 0, 0};  // F, I, W: attention, dense MLPs, LM head
  double shared[3] = {0, 0, 0};      // shared experts on the GPU's own tokens
  double routed[3] = {0, 0, 0};      // one token through one routed expert of every MoE layer
  double dispatch_bytes = 0;         // per token-expert assignment
  double combine_bytes = 0;
  double tokens = 0;                 // T the GPU owns per micro-batch: b·s, ÷ t with sequence parallelism
  int etp = 1;                       // the ETP group's size: its members' receipts are all-gathered
};

/// How tokens spread over an expert-parallel group: each member's share of the assignments.
struct ExpertRouting {
  int ep = 1;
  int top_k = 0;
  int max_nodes_per_token = 0;
  std::vector<double> member_shares;
  bool enabled() const { return top_k > 0; }
};

/// One virtual stage's costs on one GPU of its TP group, per micro-batch.
struct StageWork {
  double f_flops = 0;
  double i_flops = 0;  // backward for inputs; the full backward B is I + W
  double w_flops = 0;
  double forward_bytes = 0;   // activation sent to the next stage
  double backward_bytes = 0;  // gradient sent to the previous stage
  int tp_allreduces_forward = 0;   // in F
  int tp_allreduces_backward = 0;  // in B or I
  double tp_allreduce_bytes = 0;   // S of every TP collective: a reduce-scatter or all-gather is half its ring
  int tp_reduce_scatters_forward = 0;  // sequence parallelism's halves, in F
  int tp_reduce_scatters_backward = 0;  // in B or I
  int tp_all_gathers_forward = 0;
  int tp_all_gathers_backward = 0;
  int tp_native_pairs_backward = 0;  // of those, the column GEMMs' async re-gathers and reduce-scatters
  // The GEMMs of F, I and W that --tp-comm-overlap pairs the collectives with: a whole B's weight
  // GEMMs hide some too (TE's bulk overlap of the input gradient's reduce-scatter with wgrad).
  double f_tp_gemm_flops = 0;
  double i_tp_gemm_flops = 0;
  double w_tp_gemm_flops = 0;
  // Context parallelism (model::StageCost's cp_ fields): the layers whose attention runs with it, K
  // and V's bytes and Q's on the GPU, and the attention core's FLOPs in F and I that the ring's
  // sends overlap with, a step at a time.
  int cp_forward_layers = 0, cp_backward_layers = 0, cp_recomputed_layers = 0;
  double cp_kv_bytes = 0, cp_q_bytes = 0;
  double f_attention_flops = 0, i_attention_flops = 0;
  double gradient_bytes = 0;            // this stage's share of the data-parallel all-reduce
  double parameter_bytes = 0;           // its parameters (bf16), all-gathered by the distributed optimizer
  double embedding_gradient_bytes = 0;  // tied embeddings, on the first and last stage
  double expert_gradient_bytes = 0;     // routed experts, all-reduced over the d / ep replicas holding them
  /// ZeRO-3's units on this GPU (schedules/fsdp_op_cost.h): the root (embeddings, final norm, head)
  /// and each of `fsdp_blocks` blocks, as bf16 parameters all-gathered and gradients reduce-scattered.
  double fsdp_root_parameter_bytes = 0, fsdp_block_parameter_bytes = 0;
  double fsdp_root_gradient_bytes = 0, fsdp_block_gradient_bytes = 0;
  int fsdp_blocks = 0;
  MoeWork moe;                          // moe.moe_layers == 0: a dense stage
};

/// The costs of all stages of a job. Compute is in FLOPs so that a GPU made slower in the platform
/// file takes longer; explicit times are turned into FLOPs at a reference speed.
class JobCosts {
 public:
  /// Explicit times in seconds on a GPU of `reference_speed` flop/s; `p2p_bytes` per boundary.
  static JobCosts from_times(const ActionTimes& times, double reference_speed, int stages, double p2p_bytes);
  /// A transformer's costs (sim/model): its bytes and collectives, and its compute as `work` says
  /// (model::ComputeWork: the kernel model's times or FLOPs at one efficiency), one per stage.
  static JobCosts from_model(const std::vector<model::StageCost>& stages, const std::vector<model::ComputeWork>& work,
                             ExpertRouting routing = {});
  explicit JobCosts(std::vector<StageWork> stages = {}, double pair_saving_flops = 0, ExpertRouting routing = {});

  /// Multiplies the compute of the named stages (the embedding and LM-head stages are heavier, say).
  /// Throws InputError for an unknown stage or a factor that is not positive.
  void scale_stages(const std::map<int, double>& factors);

  int num_stages() const { return static_cast<int>(stages_.size()); }
  const StageWork& stage(int s) const { return stages_[s]; }
  double flops(const Action& a) const;
  /// An overlapped pair costs its halves less what overlapping saves (FB < F + B).
  double flops(const Op& op) const;
  TpCollectives tp_collectives(const Op& op) const;
  double tp_allreduce_bytes(const Op& op) const;
  /// The op's GEMMs that its TP collectives overlap with (--tp-comm-overlap), in seconds at `speed`:
  /// action by action, as the contention-free engine sums them.
  double tp_gemm_seconds(const Op& op, double speed) const;
  /// The op's backward GEMMs that sequence parallelism's native pairs run under: its dgrad (I's, of a
  /// B or an I) and wgrad (a whole B's) seconds at `speed`.
  std::pair<double, double> tp_backward_gemm_seconds(const Op& op, double speed) const;
  const ExpertRouting& routing() const { return routing_; }
  double result_bytes(int stage, bool backward) const {
    return backward ? stages_[stage].backward_bytes : stages_[stage].forward_bytes;
  }

 private:
  std::vector<StageWork> stages_;
  double pair_saving_flops_ = 0;
  ExpertRouting routing_;
};

}  // namespace pipegrid::sim
