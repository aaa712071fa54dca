#include "sim/platform/presets.h"

#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid::platform {

namespace {

// 80 GB of HBM is 80 GiB: nvidia-smi reports 81920 MiB on an A100-SXM4-80GB. What the CUDA context
// and NCCL take out of it is the memory model's business, not the platform's.
constexpr std::int64_t k80GiB = std::int64_t{80} << 30;

// Per direction: NVIDIA quotes NVLink as both directions together (A100 600 GB/s, H100 900 GB/s).
constexpr double kNvlink3 = 300e9;  // A100 SXM, NVLink 3 (docs/reference.md, "Hardware figures")
constexpr double kNvlink4 = 450e9;  // H100 SXM, NVLink 4 (same)
constexpr double kNvlinkH800 = 160e9;  // H800 as DeepSeek-V3 measured it ("NVLink 160 GB/s")
// PCIe x16 per direction, rounded from 31.5 GB/s (Gen4) and 63 GB/s (Gen5) after encoding.
constexpr double kPcieGen4 = 32e9;
constexpr double kPcieGen5 = 64e9;
constexpr double kHdr = 200e9 / 8;  // InfiniBand HDR, 200 Gb/s = 25 GB/s per port
constexpr double kNdr = 400e9 / 8;  // InfiniBand NDR, 400 Gb/s = 50 GB/s per port
constexpr double kA100Bf16 = 312e12;  // A100 SXM dense bf16 peak
constexpr double kH100Bf16 = 989e12;  // H100 SXM dense bf16 peak; the H800 has the same compute
// Nodes per leaf switch: one scalable unit of NVIDIA's reference SuperPODs.
constexpr int kDgxA100ScalableUnit = 20;  // DGX SuperPOD A100: 20 nodes per SU
constexpr int kDgxH100ScalableUnit = 32;  // DGX SuperPOD H100: 32 nodes per SU

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {
      // Megatron-LM (SC21): DGX A100 80 GB, 8 × HDR per node, one per GPU.
      {"dgx-a100", "A100", kA100Bf16, k80GiB, kNvlink3, kPcieGen4, kHdr, 8, kDgxA100ScalableUnit},
      // DGX H100: 8 × ConnectX-7 NDR, one per GPU.
      {"dgx-h100", "H100", kH100Bf16, k80GiB, kNvlink4, kPcieGen5, kNdr, 8, kDgxH100ScalableUnit},
      // DeepSeek-V3: 2048 H800, 8 per node, InfiniBand 50 GB/s per GPU.
      {"h800", "H800", kH100Bf16, k80GiB, kNvlinkH800, kPcieGen5, kNdr, 8, kDgxH100ScalableUnit},
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
