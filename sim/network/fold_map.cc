#include "sim/network/fold_map.h"

#include <stdexcept>

namespace pipegrid::sim {

void FoldMap::set(std::size_t gpus, std::size_t links, std::vector<int> rail_of_gpu, std::vector<int> rail0_gpu,
                  int rails, std::vector<int> mirror_of, const std::vector<int>& analytic_mirror_of,
                  const std::vector<AnalyticHopImage>& analytic_hops) {
  if (rail_of_gpu.size() != gpus || rail0_gpu.size() != gpus || rails < 2 || mirror_of.size() > links)
    throw std::logic_error("Network::use_rail_fold: one rail and one rail-0 GPU per job GPU, two rails or more, "
                           "a mirror entry per known link at most");
  rail_of_gpu_ = std::move(rail_of_gpu);
  rail0_gpu_ = std::move(rail0_gpu);
  rails_ = rails;
  if (analytic_mirror_of.size() > links)
    throw std::logic_error("Network::use_rail_fold: an analytic mirror entry per known link at most");
  mirror_of_ = std::move(mirror_of);
  is_mirrored_.assign(links, 0);
  for (int link0 : mirror_of_)
    if (link0 != -1) is_mirrored_[link0] = 1;
  // The analytic mirrors join the flows' in mirror_of_ (a mirror takes its link's account alike).
  mirror_of_.resize(links, -1);
  analytic_mirror_.assign(links, 0);
  analytic_image_.assign(links, 0);
  for (std::size_t link = 0; link < analytic_mirror_of.size(); ++link)
    if (const int link0 = analytic_mirror_of[link]; link0 != -1) {
      if (mirror_of_[link] != -1 || is_mirrored_[link] || is_mirrored_[link0])
        throw std::logic_error("Network::use_rail_fold: a link both the flows' and the analytic hops' mirror");
      mirror_of_[link] = link0;
      analytic_mirror_[link] = 1;
      analytic_image_[link0] = 1;
    }
  for (const AnalyticHopImage& hop : analytic_hops) {
    hop_image_[pair_key(hop.src, hop.dst)] = {hop.src0, hop.dst0};
    image_hops_.insert(pair_key(hop.src0, hop.dst0));
  }
}

std::optional<std::pair<int, int>> FoldMap::hop_image(int src, int dst) const {
  const auto image = hop_image_.find(pair_key(src, dst));
  if (image == hop_image_.end()) return std::nullopt;
  return image->second;
}

}  // namespace pipegrid::sim
