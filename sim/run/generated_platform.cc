#include "sim/run/generated_platform.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

#include "common/input_error.h"
#include "sim/output/atomic_file.h"
#include "sim/output/run_folder.h"
#include "sim/run/limits.h"

namespace pipegrid::run {

namespace {

// Every option of platform gen besides --preset, in the schema's order.
constexpr const char* kShapeFlags[] = {"nodes",           "nvlink-bw",      "ib-bw", "nics-per-node",
                                       "oversubscription", "nodes-per-leaf", "zones"};

}  // namespace

platform::ClusterOptions cluster_options(const input::OptionValues& v) {
  platform::ClusterOptions cluster;
  cluster.preset = v.text("preset");
  cluster.nodes = v.has("nodes") ? v.integer("nodes") : 0;
  if (v.has("nvlink-bw")) cluster.nvlink_bandwidth = v.text("nvlink-bw");
  if (v.has("ib-bw")) cluster.ib_bandwidth = v.text("ib-bw");
  if (const auto nics = v.given_int("nics-per-node")) cluster.nics_per_node = *nics;
  cluster.oversubscription = v.given_number("oversubscription");
  if (const auto per_leaf = v.given_int("nodes-per-leaf")) cluster.nodes_per_leaf = *per_leaf;
  if (v.has("zones")) cluster.zones = value_named<platform::ZoneLayout>(platform::kZoneLayouts, v.text("zones"));
  return cluster;
}

platform::ClusterSpec generated_cluster(const input::OptionValues& v) {
  if (!v.has("nodes"))
    throw InputError(fmt::format("--preset {}: needs --nodes ([platform] nodes), the nodes of 8 GPUs to generate",
                                 v.text("preset")));
  return platform::make_cluster_spec(cluster_options(v));
}

void check_generated_size(const platform::ClusterSpec& cluster) {
  // SimGrid holds every host of the platform, not only the job's: each GPU costs what a simulated one
  // does (limits.h), and the XML itself some more per node, left out of the estimate.
  const double gpus = static_cast<double>(cluster.nodes) * platform::kGpusPerNode;
  const double limit = std::floor(memory_limit_bytes() / kBytesPerGpu);
  if (gpus <= limit) return;
  throw InputError(fmt::format("--nodes {}: a generated platform of {:.0f} GPUs needs ~{} to simulate; the limit on "
                               "this machine is {:.0f} GPUs (~{})",
                               cluster.nodes, gpus, human_bytes(gpus * kBytesPerGpu), limit,
                               human_bytes(limit * kBytesPerGpu)));
}

void check_no_generator_options(const input::OptionValues& v) {
  for (const char* flag : kShapeFlags)
    if (v.has(flag))
      throw InputError(fmt::format("--{}: shapes a generated platform (with --preset); --platform {} is read as it "
                                   "is: edit the file, or generate it with --preset instead",
                                   flag, v.text("platform")));
}

std::string write_generated_platform(const std::string& out, const std::string& xml) {
  output::make_output_dir(out);
  const std::string file = output::output_path(out, output::OutputFile::PlatformXml);
  output::write_atomically(file, xml);
  return file;
}

GeneratedPlatformFile::GeneratedPlatformFile(const std::string& xml) {
  std::string pattern = (std::filesystem::temp_directory_path() / "pipegrid-platform-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw InputError(fmt::format("generated platform: cannot create a temporary directory: {}", std::strerror(errno)));
  dir_ = pattern;
  std::ofstream out(file(), std::ios::binary);
  if (!(out << xml).flush()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    throw InputError(fmt::format("generated platform: cannot write {}", file()));
  }
}

GeneratedPlatformFile::~GeneratedPlatformFile() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace pipegrid::run
