// How a job's ranks are laid out over named parallel dimensions, as Megatron-Core's RankGenerator
// does it (megatron/core/parallel_state.py): the order names the dimensions fastest first, rank
// k = Σ coordinate(d) · stride(d), and a group of dimensions is the ranks that differ only in them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::model {

/// The dimensions an order may name: tensor, context, expert, data and pipeline parallelism.
inline constexpr std::string_view kRankDimensions[] = {"tp", "cp", "ep", "dp", "pp"};

/// Megatron-Core's default order (parallel_state.initialize_model_parallel's `order`).
inline constexpr std::string_view kMegatronOrder = "tp-cp-ep-dp-pp";

/// Parses an order: dimension names joined by '-', fastest first. It must name tp, dp and pp, may
/// name cp and ep, each at most once. Missing cp goes right after tp and missing ep right before dp
/// (where the three-name orders of earlier versions implied them), so the result names all five.
/// Returns "" and fills `dims`, or the rule the text breaks.
std::string parse_rank_order(std::string_view order, std::vector<std::string>& dims);

struct RankDimension {
  std::string name;
  int size = 1;
};

class RankLayout {
 public:
  RankLayout() = default;
  /// `dims` fastest first; every size at least 1.
  explicit RankLayout(std::vector<RankDimension> dims);

  int size() const { return size_; }
  const std::vector<RankDimension>& dims() const { return dims_; }
  /// The rank's coordinate along `name` (0 for a dimension the layout does not have).
  int coordinate(int rank, std::string_view name) const;
  /// The ranks that share every coordinate with `rank` but those of `names`, in rank order
  /// (Megatron-Core's generate_masked_orthogonal_rank_groups enumerates them so).
  std::vector<int> group(int rank, const std::vector<std::string_view>& names) const;

 private:
  int index_of(std::string_view name) const;  // -1 when absent
  std::vector<RankDimension> dims_;
  std::vector<int> strides_;
  int size_ = 0;
};

}  // namespace pipegrid::model
