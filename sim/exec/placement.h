// Which GPU plays which part: the (tensor, context, data, pipeline) coordinates of every GPU of a job,
// and its expert-parallel groups, laid over the platform's GPUs in Megatron-Core's order or another
// one the user names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/model/rank_layout.h"

namespace pipegrid::sim {

/// A GPU's coordinates in the job: its tensor-parallel rank, its data-parallel replica, its pipeline
/// rank and its context-parallel rank (0 until context parallelism exists).
struct GpuCoordinates {
  int tp = 0;
  int dp = 0;
  int pp = 0;
  int cp = 0;
  friend bool operator==(const GpuCoordinates&, const GpuCoordinates&) = default;
};

/// The parallel sizes. tp·cp·dp·pp GPUs; ep and etp re-split the tp·cp·dp GPUs of a stage for the
/// expert layers (Megatron-Core: expert-data-parallel size = tp·cp·dp / (ep·etp)).
struct ParallelSizes {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  int etp = 1;
  int gpus() const { return tp * cp * pp * dp; }
  int expert_dp() const { return tp * cp * dp / (ep * etp); }
};

/// A GPU of the platform as placement sees it.
struct PlatformGpu {
  std::string host;
  int node = 0;
};

/// The kinds of group a GPU belongs to, in Megatron-Core's words: tp, cp, dp, pp, and for the expert
/// layers ep, etp (expert tensor parallel) and edp (expert data parallel).
inline constexpr std::string_view kGroupKinds[] = {"tp", "cp", "dp", "pp", "ep", "etp", "edp"};

/// The map between job coordinates and platform GPUs (indices into the platform's GPU list, which
/// is sorted by node then local index).
///
/// The order names the dimensions fastest first, as Megatron-Core's RankGenerator takes it: the
/// default "tp-cp-ep-dp-pp" (same as the older "tp-dp-pp") puts a TP group on consecutive GPUs (one
/// node when t ≤ 8), then the context-parallel ranks, then the data-parallel replicas, then the
/// pipeline ranks, i.e. GPU k = t + T·(c + C·(d + D·r)). The expert layers lay the same GPUs out in
/// the same order with etp for tp, 1 for cp, ep and edp for dp (Megatron-Core's expert rank
/// generator). Invariant: a bijection between the coordinates and the first T·C·D·P platform GPUs.
class Placement {
 public:
  /// No job: no GPU.
  Placement() = default;
  /// Throws InputError when the job needs more GPUs than the platform has, when the order is not
  /// one of the dimensions' orders, when ep·etp does not divide tp·cp·dp, when the expert layers'
  /// pipeline ranks would differ from the others', or when a TP group spans nodes and that is not
  /// allowed.
  Placement(const ParallelSizes& sizes, const std::string& order, const std::vector<PlatformGpu>& gpus,
            bool allow_tp_across_nodes);

  const ParallelSizes& sizes() const { return sizes_; }
  int num_gpus() const { return sizes_.gpus(); }
  int gpu(const GpuCoordinates& c) const;
  const GpuCoordinates& coordinates(int gpu) const { return coordinates_[gpu]; }
  /// The GPUs of `gpu`'s group of `kind` (one of kGroupKinds), ordered by their coordinate in it.
  std::vector<int> group(int gpu, std::string_view kind) const;
  /// The GPUs `gpu`'s gradients are reduced with (and the distributed optimizer shards over):
  /// Megatron-Core's data-parallel group with context parallelism (parallel_state
  /// get_data_parallel_group(with_context_parallel=True)), its d·cp GPUs of the same tp and pp
  /// coordinates, in rank order. One function for every gradient and parameter collective.
  std::vector<int> gradient_group(int gpu) const { return layout_.group(gpu, {"cp", "dp"}); }
  /// `gpu`'s index in gradient_group(gpu).
  int rank_in_gradient_group(int gpu) const;
  /// `gpu`'s context-parallel and data-parallel coordinates as one replica index, d·cp + c: the
  /// pipelines that run the same program side by side.
  int replica_of(int gpu) const { return coordinates_[gpu].dp * sizes_.cp + coordinates_[gpu].cp; }
  /// `gpu`'s coordinate in its group of `kind`: its index in group(gpu, kind).
  int rank_in(int gpu, std::string_view kind) const;
  const model::RankLayout& layout() const { return layout_; }
  const model::RankLayout& expert_layout() const { return expert_layout_; }

 private:
  ParallelSizes sizes_{0, 0, 0, 0, 0, 0};
  int strides_[4] = {0, 0, 0, 0};  // of tp, dp, pp, cp in the GPU index
  model::RankLayout layout_, expert_layout_;
  std::vector<GpuCoordinates> coordinates_;
};

}  // namespace pipegrid::sim
