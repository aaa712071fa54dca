// Which hosts of a platform are GPUs, and their node, index in the node and memory: read from the
// hosts' props where the file gives them, inferred where a standard SimGrid platform (a <cluster>,
// SimGrid's own examples) does not, each inference told in PlatformFacts::inferences.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// One <prop> as read, with its line for errors.
struct PropText {
  std::string value;
  int line = 0;
};

/// A host as the file declares it: a <host>, or one that a <cluster> or <cabinet> expands to (then
/// with the cluster's props, as SimGrid copies them onto each host, and the cluster's line).
struct HostRecord {
  std::string name;
  double speed = 0;  // flop/s, the first pstate's
  std::map<std::string, PropText> props;
  int line = 0;
  int cluster = -1;            // index into PlatformFacts::clusters; -1 for a <host>
  int index_in_cluster = 0;    // its position among the cluster's hosts, in SimGrid's order
};

/// pipegrid's memory for a GPU inferred from a file that names none: 80 GiB, the HBM of the 80 GB
/// A100 and H100 that the checked-in platforms describe.
inline constexpr const char* kDefaultGpuMemory = "80GiB";

/// Fills facts.gpus (sorted by (node, gpu)), facts.other_hosts, facts.nodes and facts.inferences:
///  - the GPUs are the hosts with role=gpu; when no host has it, every host is a GPU;
///  - a GPU's node and gpu are its props; a cluster's GPU without both is placed one per node, or
///    gpus_per_node (a prop of the cluster) consecutive hosts per node, numbered after the nodes the
///    file gives; a <host> without both is one node of its own when no host has role=gpu;
///  - memory is a prop in SimGrid's size units (80GiB, 80GB, 1e10 bytes); a GPU without it gets
///    kDefaultGpuMemory only when it was inferred (no host has role=gpu).
/// Throws InputError "FILE:LINE: host H: …"; a GPU missing props names all of them in one line.
void infer_gpus(const std::string& path, const std::vector<HostRecord>& hosts, PlatformFacts& facts);

}  // namespace pipegrid::platform
