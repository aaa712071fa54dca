// The names of a generated platform's hosts, routers and links, stated once: the generator writes
// them, and `platform info` groups links into classes by their suffix.
#pragma once

#include <fmt/format.h>
#include <string>

namespace pipegrid::platform {

inline std::string gpu_host_name(int node, int gpu) { return fmt::format("node{}-gpu{}", node, gpu); }
inline std::string nvswitch_router_name(int node) { return fmt::format("node{}-nvswitch", node); }
inline std::string leaf_router_name(int leaf_group, int rail) { return fmt::format("leaf{}-rail{}", leaf_group, rail); }
inline constexpr const char* kSpineRouterName = "spine";

// Links: a suffix per class. A switch's router and its link share a name (node0-nvswitch): SimGrid
// keeps netpoints and links apart.
inline constexpr const char* kNvlinkSuffix = "-nvlink";
inline constexpr const char* kNvswitchSuffix = "-nvswitch";
inline constexpr const char* kPcieSuffix = "-pcie";
inline constexpr const char* kIbSuffix = "-ib";
inline constexpr const char* kUplinkSuffix = "-up";

inline std::string nvlink_name(int node, int gpu) { return gpu_host_name(node, gpu) + kNvlinkSuffix; }
inline std::string nvswitch_name(int node) { return fmt::format("node{}{}", node, kNvswitchSuffix); }
inline std::string pcie_name(int node, int gpu) { return gpu_host_name(node, gpu) + kPcieSuffix; }
inline std::string nic_pcie_name(int node, int nic) { return fmt::format("node{}-nic{}{}", node, nic, kPcieSuffix); }
inline std::string ib_name(int node, int nic) { return fmt::format("node{}-nic{}{}", node, nic, kIbSuffix); }
inline std::string uplink_name(int leaf_group, int rail) { return leaf_router_name(leaf_group, rail) + kUplinkSuffix; }

}  // namespace pipegrid::platform
