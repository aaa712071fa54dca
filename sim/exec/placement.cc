#include "sim/exec/placement.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "common/input_error.h"
#include "common/number_format.h"

namespace pipegrid::sim {

namespace {

constexpr std::array<const char*, 3> kDimensions = {"tp", "dp", "pp"};

// The dimensions of `order`, fastest first, as indices into kDimensions.
std::array<int, 3> parse_order(const std::string& order) {
  std::array<int, 3> dims{};
  std::size_t begin = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t end = order.find('-', begin);
    const std::string name = order.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const auto found = std::find(kDimensions.begin(), kDimensions.end(), name);
    if (found == kDimensions.end() || (i < 2) == (end == std::string::npos))
      throw InputError(fmt::format("--placement {}: must order tp, dp and pp, fastest first, as in tp-dp-pp", order));
    dims[i] = static_cast<int>(found - kDimensions.begin());
    begin = end + 1;
  }
  if (dims[0] == dims[1] || dims[1] == dims[2] || dims[0] == dims[2])
    throw InputError(fmt::format("--placement {}: must name each of tp, dp and pp once", order));
  return dims;
}

}  // namespace

Placement::Placement(const ParallelSizes& sizes, const std::string& order, const std::vector<PlatformGpu>& gpus,
                     bool allow_tp_across_nodes)
    : sizes_(sizes) {
  for (auto [flag, value] : {std::pair{"--tp", sizes.tp}, {"--pp", sizes.pp}, {"--dp", sizes.dp}})
    if (value < 1) throw InputError(fmt::format("{} {}: must be at least 1", flag, value));
  // In doubles (exact below 2^53): t·p·d may exceed an int (--tp 65536 --dp 65536), which gpus() counts in.
  const double needed = static_cast<double>(sizes.tp) * sizes.pp * sizes.dp;
  if (needed > static_cast<double>(gpus.size()))
    throw InputError(fmt::format("--tp {} --pp {} --dp {}: needs {} GPUs, the platform has {}", sizes.tp, sizes.pp,
                                 sizes.dp, format_number(needed), gpus.size()));
  const std::array<int, 3> dims = parse_order(order);
  const std::array<int, 3> extent = {sizes.tp, sizes.dp, sizes.pp};
  int stride = 1;
  for (int dim : dims) {
    strides_[dim] = stride;
    stride *= extent[dim];
  }
  coordinates_.resize(sizes.gpus());
  for (int r = 0; r < sizes.pp; ++r)
    for (int d = 0; d < sizes.dp; ++d)
      for (int t = 0; t < sizes.tp; ++t) coordinates_[gpu({t, d, r})] = {t, d, r};

  if (allow_tp_across_nodes) return;
  for (int r = 0; r < sizes.pp; ++r)
    for (int d = 0; d < sizes.dp; ++d) {
      const int first = gpu({0, d, r});
      for (int t = 1; t < sizes.tp; ++t) {
        const int other = gpu({t, d, r});
        if (gpus[other].node != gpus[first].node)
          throw InputError(fmt::format(
              "--tp {}: the TP group of pp rank {}, dp replica {} spans nodes {} ({}) and {} ({}); pass "
              "--allow-tp-across-nodes to allow it",
              sizes.tp, r, d, gpus[first].node, gpus[first].host, gpus[other].node, gpus[other].host));
      }
    }
}

int Placement::gpu(const GpuCoordinates& c) const {
  return c.tp * strides_[0] + c.dp * strides_[1] + c.pp * strides_[2];
}

}  // namespace pipegrid::sim
