#include "sim/platform/presets.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/model/gpu_spec.h"

namespace pipegrid::platform {

namespace {

// PCIe x16 per direction, rounded from 31.5 GB/s (Gen4) and 63 GB/s (Gen5) after encoding.
constexpr double kPcieGen4 = 32e9;
constexpr double kPcieGen5 = 64e9;
constexpr double kHdr = 200e9 / 8;  // InfiniBand HDR, 200 Gb/s = 25 GB/s per port
constexpr double kNdr = 400e9 / 8;  // InfiniBand NDR, 400 Gb/s = 50 GB/s per port (ConnectX-7)
// Nodes per leaf switch: one scalable unit of NVIDIA's reference SuperPODs.
constexpr int kDgxA100ScalableUnit = 20;  // DGX SuperPOD A100: 20 nodes per SU
constexpr int kDgxH100ScalableUnit = 32;  // DGX SuperPOD H100 (and H200, B200): 32 nodes per SU

// The GPU's figures (dense bf16 peak, HBM, NVLink each way) come from its file in platforms/gpus/,
// their one source; the node's PCIe and InfiniBand from the node's own datasheet.
Preset node(std::string name, std::string_view gpu_key, double pcie, double ib, int nodes_per_leaf) {
  const model::GpuSpec& gpu = model::shipped_gpu(gpu_key);
  return {.name = std::move(name),
          .gpu_model = gpu.gpu_models.front(),
          .gpu_speed = gpu.tensor_flops,
          .gpu_memory = static_cast<std::int64_t>(gpu.hbm_capacity),
          .nvlink_bandwidth = gpu.nvlink_bandwidth,
          .pcie_bandwidth = pcie,
          .ib_bandwidth = ib,
          .nics_per_node = 8,
          .nodes_per_leaf = nodes_per_leaf};
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {
      // Megatron-LM (SC21): DGX A100 80 GB, 8 × HDR per node, one per GPU.
      node("dgx-a100", "a100-80gb", kPcieGen4, kHdr, kDgxA100ScalableUnit),
      // DGX H100: 8 × ConnectX-7 NDR, one per GPU.
      node("dgx-h100", "h100-sxm", kPcieGen5, kNdr, kDgxH100ScalableUnit),
      // DGX H200: the DGX H100's node (8 × ConnectX-7 NDR) with H200s.
      node("dgx-h200", "h200", kPcieGen5, kNdr, kDgxH100ScalableUnit),
      // DGX B200: 8 × ConnectX-7 400 Gb/s, one per GPU (DGX B200 datasheet).
      node("dgx-b200", "b200", kPcieGen5, kNdr, kDgxH100ScalableUnit),
      // DeepSeek-V3: 2048 H800, 8 per node, InfiniBand 50 GB/s per GPU (8 × 400 Gb/s NDR).
      node("h800", "h800", kPcieGen5, kNdr, kDgxH100ScalableUnit),
  };
  return all;
}

const Preset& find_preset(const std::string& name) {
  std::string names;
  for (const Preset& preset : presets()) {
    if (preset.name == name) return preset;
    names += (names.empty() ? "" : ", ") + preset.name;
  }
  throw InputError(fmt::format("--preset {}: must be one of {}", name, names));
}

}  // namespace pipegrid::platform
