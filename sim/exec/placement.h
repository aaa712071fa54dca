// Which GPU plays which part: the (tensor, data, pipeline) coordinates of every GPU of a job, laid over
// the platform's GPUs in Megatron-LM's order or another one the user names.
#pragma once

#include <string>
#include <vector>

namespace pipegrid::sim {

/// A GPU's coordinates in the job: its tensor-parallel rank, its data-parallel replica and its
/// pipeline rank.
struct GpuCoordinates {
  int tp = 0;
  int dp = 0;
  int pp = 0;
  friend bool operator==(const GpuCoordinates&, const GpuCoordinates&) = default;
};

struct ParallelSizes {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int gpus() const { return tp * pp * dp; }
};

/// A GPU of the platform as placement sees it.
struct PlatformGpu {
  std::string host;
  int node = 0;
};

/// The map between job coordinates and platform GPUs (indices into the platform's GPU list, which
/// is sorted by node then local index).
///
/// The order names the dimensions fastest first: Megatron's default "tp-dp-pp" puts a TP group on
/// consecutive GPUs (one node when t ≤ 8), then the data-parallel replicas, then the pipeline ranks,
/// i.e. GPU k = t + T·(d + D·r). Invariant: a bijection between the T·P·D coordinates and the first
/// T·P·D platform GPUs.
class Placement {
 public:
  /// No job: no GPU.
  Placement() = default;
  /// Throws InputError when the job needs more GPUs than the platform has, when the order is not a
  /// permutation of tp, dp, pp, or when a TP group spans nodes and that is not allowed.
  Placement(const ParallelSizes& sizes, const std::string& order, const std::vector<PlatformGpu>& gpus,
            bool allow_tp_across_nodes);

  const ParallelSizes& sizes() const { return sizes_; }
  int num_gpus() const { return sizes_.gpus(); }
  int gpu(const GpuCoordinates& c) const;
  const GpuCoordinates& coordinates(int gpu) const { return coordinates_[gpu]; }

 private:
  ParallelSizes sizes_{0, 0, 0};
  int strides_[3] = {0, 0, 0};  // of tp, dp, pp in the GPU index
  std::vector<GpuCoordinates> coordinates_;
};

}  // namespace pipegrid::sim
