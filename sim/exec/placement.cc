#include "sim/exec/placement.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"
#include "common/number_format.h"

namespace pipegrid::sim {

namespace {

// The layout of `order`'s dimensions with `size_of` each (Megatron-Core's RankGenerator).
template <typename SizeOf>
model::RankLayout layout_of(const std::vector<std::string>& order, SizeOf size_of) {
  std::vector<model::RankDimension> dims;
  for (const std::string& name : order) dims.push_back({name, size_of(name)});
  return model::RankLayout(std::move(dims));
}

}  // namespace

Placement::Placement(const ParallelSizes& sizes, const std::string& order, const std::vector<PlatformGpu>& gpus,
                     bool allow_tp_across_nodes)
    : sizes_(sizes) {
  for (auto [flag, value] : {std::pair{"--tp", sizes.tp},
                             {"--pp", sizes.pp},
                             {"--dp", sizes.dp},
                             {"--cp", sizes.cp},
                             {"--ep", sizes.ep},
                             {"--etp", sizes.etp}})
    if (value < 1) throw InputError(fmt::format("{} {}: must be at least 1", flag, value));
  // In doubles (exact below 2^53): t·c·p·d may exceed an int (--tp 65536 --dp 65536), which gpus() counts in.
  const double needed = static_cast<double>(sizes.tp) * sizes.cp * sizes.pp * sizes.dp;
  if (needed > static_cast<double>(gpus.size()) && sizes.cp > 1)
    throw InputError(fmt::format("--tp {} --pp {} --dp {} --cp {}: tp·cp·dp·pp = {} GPUs, the platform has {}", sizes.tp,
                                 sizes.pp, sizes.dp, sizes.cp, format_number(needed), gpus.size()));
  if (needed > static_cast<double>(gpus.size()))
    throw InputError(fmt::format("--tp {} --pp {} --dp {}: needs {} GPUs, the platform has {}", sizes.tp, sizes.pp,
                                 sizes.dp, format_number(needed), gpus.size()));
  std::vector<std::string> dims;
  if (const std::string rule = model::parse_rank_order(order, dims); !rule.empty())
    throw InputError(fmt::format("--placement {}: {}", order, rule));
  // Megatron-Core's rule (parallel_state.initialize_model_parallel): the expert layers re-split a
  // stage's tp·cp·dp GPUs into etp × ep × expert-data-parallel.
  const int stage_gpus = sizes.tp * sizes.cp * sizes.dp;
  if (stage_gpus % (sizes.ep * sizes.etp) != 0)
    throw InputError(
        fmt::format("--ep {} --etp {}: ep·etp = {} must divide tp·cp·dp = {} (the GPUs of a stage, which "
                    "the expert layers split into etp × ep × expert-data-parallel)",
                    sizes.ep, sizes.etp, sizes.ep * sizes.etp, stage_gpus));
  const ParallelSizes s = sizes;
  layout_ = layout_of(dims, [&](const std::string& name) {
    return name == "tp" ? s.tp : name == "cp" ? s.cp : name == "dp" ? s.dp : name == "pp" ? s.pp : 1;
  });
  expert_layout_ = layout_of(dims, [&](const std::string& name) {
    return name == "tp" ? s.etp : name == "ep" ? s.ep : name == "dp" ? s.expert_dp() : name == "pp" ? s.pp : 1;
  });
  const char* names[4] = {"tp", "dp", "pp", "cp"};
  for (int i = 0; i < 4; ++i) {
    const std::vector<int> along = layout_.group(0, {names[i]});
    strides_[i] = along.size() > 1 ? along[1] : 0;
  }
  coordinates_.resize(sizes.gpus());
  for (int k = 0; k < sizes.gpus(); ++k) {
    coordinates_[k] = {layout_.coordinate(k, "tp"), layout_.coordinate(k, "dp"), layout_.coordinate(k, "pp"),
                       layout_.coordinate(k, "cp")};
    // Megatron-Core asserts it too: both layouts must give a GPU the same pipeline rank.
    if (expert_layout_.coordinate(k, "pp") != coordinates_[k].pp)
      throw InputError(
          fmt::format("--placement {}: with --etp {} and --tp {} GPU {} would be pipeline rank {} in the "
                      "expert layers and {} in the others; put pp after tp, cp, ep and dp",
                      order, sizes.etp, sizes.tp, k, expert_layout_.coordinate(k, "pp"), coordinates_[k].pp));
  }

  if (allow_tp_across_nodes) return;
  for (int r = 0; r < sizes.pp; ++r)
    for (int d = 0; d < sizes.dp; ++d)
      for (int c = 0; c < sizes.cp; ++c) {
        const int first = gpu({0, d, r, c});
        for (int t = 1; t < sizes.tp; ++t) {
          const int other = gpu({t, d, r, c});
          if (gpus[other].node != gpus[first].node)
            throw InputError(
                fmt::format("--tp {}: the TP group of pp rank {}, dp replica {} spans nodes {} ({}) and {} ({}); pass "
                            "--allow-tp-across-nodes to allow it",
                            sizes.tp, r, d, gpus[first].node, gpus[first].host, gpus[other].node, gpus[other].host));
        }
      }
}

int Placement::gpu(const GpuCoordinates& c) const {
  return c.tp * strides_[0] + c.dp * strides_[1] + c.pp * strides_[2] + c.cp * strides_[3];
}

std::vector<int> Placement::group(int gpu, std::string_view kind) const {
  if (kind == "etp") return expert_layout_.group(gpu, {"tp"});
  if (kind == "ep") return expert_layout_.group(gpu, {"ep"});
  if (kind == "edp") return expert_layout_.group(gpu, {"dp"});
  return layout_.group(gpu, {kind});
}

int Placement::rank_in_gradient_group(int gpu) const {
  const std::vector<int> group = gradient_group(gpu);
  return static_cast<int>(std::find(group.begin(), group.end(), gpu) - group.begin());
}

int Placement::rank_in(int gpu, std::string_view kind) const {
  if (kind == "etp") return expert_layout_.coordinate(gpu, "tp");
  if (kind == "ep") return expert_layout_.coordinate(gpu, "ep");
  if (kind == "edp") return expert_layout_.coordinate(gpu, "dp");
  return layout_.coordinate(gpu, kind);
}

}  // namespace pipegrid::sim
