#include "sim/model/kernel_time.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pipegrid::model {

double gemm_compute_seconds(const GemmShape& g, const GpuSpec& gpu, bool fp8) {
  const ComputeConstants& c = gpu.constants;
  const double efficiency = fp8 && c.fp8_gemm_efficiency > 0 ? c.fp8_gemm_efficiency : c.gemm_efficiency;
  const double per_sm = (fp8 ? gpu.fp8_tensor_flops : gpu.tensor_flops) * efficiency / gpu.sms;
  double best = std::numeric_limits<double>::infinity();
  for (const GemmTile& tile : gpu.gemm_tiles) {
    const double tiles = g.batch * std::ceil(g.m / tile.m) * std::ceil(g.n / tile.n);
    const double waves = std::ceil(tiles / gpu.sms);
    best = std::min(best, waves * (2.0 * tile.m * tile.n * g.k / per_sm + c.wave_seconds));
  }
  return best;
}

double kernel_seconds(const Kernel& k, const GpuSpec& gpu) {
  const ComputeConstants& c = gpu.constants;
  double compute = 0;
  if (k.gemm.batch > 0) compute = gemm_compute_seconds(k.gemm, gpu, k.fp8);
  else if (k.flops > 0) compute = k.flops / (gpu.tensor_flops * c.gemm_efficiency);
  const double memory = k.bytes / (gpu.hbm_bandwidth * c.memory_efficiency);
  return std::max({c.kernel_floor_seconds, compute, memory});
}

}  // namespace pipegrid::model
