// The GPU nodes pipegrid can generate a platform for, with every number's source — the GPU's in its
// file in platforms/gpus/, the node's in docs/reference.md (Megatron-LM SC21, the DeepSeek-V3 report,
// NVIDIA's datasheets) — and the latencies, pipegrid's assumptions (platforms/README.md says why).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipegrid::platform {

/// One node of a cluster as it is sold: eight GPUs on an NVSwitch, each with a PCIe link to the PCIe
/// switch of its NIC, and the NICs' InfiniBand ports, wired rail-optimised into leaf switches of
/// `nodes_per_leaf` nodes (one scalable unit). Bandwidths are bytes per second in each direction.
struct Preset {
  std::string name;       // as --preset spells it
  std::string gpu_model;  // the gpu_model property of every GPU host
  double gpu_speed = 0;             // flop/s: dense bf16 peak
  std::int64_t gpu_memory = 0;      // bytes of HBM
  double nvlink_bandwidth = 0;      // one GPU's NVLink, per direction
  double pcie_bandwidth = 0;        // one PCIe x16 link (a GPU's or a NIC's), per direction
  double ib_bandwidth = 0;          // one InfiniBand port, per direction
  int nics_per_node = 0;            // InfiniBand ports (rails) per node
  int nodes_per_leaf = 0;           // nodes under one leaf switch per rail
};

/// dgx-a100, dgx-h100, dgx-h200, dgx-b200, h800: in the order the command lists them.
const std::vector<Preset>& presets();

/// The preset called `name`; InputError "--preset NAME: must be one of dgx-a100, dgx-h100, …".
const Preset& find_preset(const std::string& name);

/// Every node has eight GPUs (DGX A100, H100, H200, B200, HGX H800).
inline constexpr int kGpusPerNode = 8;

// Latencies (seconds), assumptions: small fixed costs of the hardware, not of NCCL's software.
inline constexpr double kNvlinkLatency = 0.5e-6;    // GPU port to NVSwitch, each side of an NVLink hop
inline constexpr double kNvswitchLatency = 0;       // inside the two NVLink port latencies
inline constexpr double kPcieLatency = 0.25e-6;     // each x16 link: GPU to PCIe switch, PCIe switch to NIC
inline constexpr double kIbLatency = 1e-6;          // NIC, cable and switch hops on its side
// Zero on purpose: SimGrid's CM02 shares a bottleneck in inverse proportion to each flow's route
// latency (TCP's RTT unfairness). With the spine hop free, every route between two nodes has the
// same latency, so flows that meet on a link share it equally, as RDMA does.
inline constexpr double kLeafUplinkLatency = 0;

}  // namespace pipegrid::platform
