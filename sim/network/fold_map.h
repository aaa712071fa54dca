// The map of folded rails (rail_fold.h in the executor sets it): each GPU's rail and its rail-0 image,
// and per link whether its account is another link's — a rail's link mirroring rail 0's, or a TP
// member's analytic ring hop mirroring member 0's. Empty (no fold) until set.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pipegrid::sim {

/// An analytic ring hop inside a TP group (src → dst, member k's) and its image, member 0's hop
/// (src0 → dst0): in lockstep the two account the same bytes over the same interval.
struct AnalyticHopImage {
  int src, dst, src0, dst0;
};

class FoldMap {
 public:
  /// `rail_of_gpu`, `rail0_gpu`: one per job GPU; `mirror_of` and `analytic_mirror_of` one per link
  /// known so far (`links`) at most. Throws logic_error when they do not fit.
  void set(std::size_t gpus, std::size_t links, std::vector<int> rail_of_gpu, std::vector<int> rail0_gpu, int rails,
           std::vector<int> mirror_of, const std::vector<int>& analytic_mirror_of,
           const std::vector<AnalyticHopImage>& analytic_hops);

  bool folded() const { return rails_ > 0; }
  int rails() const { return rails_; }
  int rail_of(int gpu) const { return rail_of_gpu_[gpu]; }
  int rail0(int gpu) const { return rail0_gpu_[gpu]; }
  /// A flow between these GPUs rides with its rail-0 image: both on one rail.
  bool folds(int src_gpu, int dst_gpu) const { return rails_ > 0 && rail_of_gpu_[src_gpu] == rail_of_gpu_[dst_gpu]; }

  /// The link whose account this one takes, or -1 (links found after the fold are neither mirrors nor mirrored).
  int mirror_of(int link) const { return link < static_cast<int>(mirror_of_.size()) ? mirror_of_[link] : -1; }
  bool mirrored_or_mirror(int link) const {
    return mirror_of(link) != -1 || (link < static_cast<int>(is_mirrored_.size()) && is_mirrored_[link]);
  }
  bool is_analytic_mirror(int link) const {
    return link < static_cast<int>(analytic_mirror_.size()) && analytic_mirror_[link];
  }
  bool is_analytic_image(int link) const { return link < static_cast<int>(analytic_image_.size()) && analytic_image_[link]; }
  /// Member 0's hop of the analytic hop src → dst, when that hop has mirrors; whether src → dst is one.
  std::optional<std::pair<int, int>> hop_image(int src, int dst) const;
  bool is_image_hop(int src, int dst) const { return image_hops_.contains(pair_key(src, dst)); }
  /// Per link, the link whose account it takes (-1: its own).
  const std::vector<int>& mirrors() const { return mirror_of_; }

 private:
  static std::uint64_t pair_key(int src, int dst) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 | static_cast<std::uint32_t>(dst);
  }
  std::vector<int> rail_of_gpu_, rail0_gpu_;
  int rails_ = 0;
  std::vector<int> mirror_of_;     // per link: the link whose account it takes, or -1
  std::vector<char> is_mirrored_;  // per link: a rail-0 link with mirrors
  // Per link: an analytic mirror (its mirror_of_ is member 0's hop's link), and a link mirrored so.
  std::vector<char> analytic_mirror_, analytic_image_;
  std::unordered_map<std::uint64_t, std::pair<int, int>> hop_image_;
  std::unordered_set<std::uint64_t> image_hops_;
};

}  // namespace pipegrid::sim
