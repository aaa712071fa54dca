#include "sim/platform/gpu_inference.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <set>

#include "common/input_error.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_gpu_role(const HostRecord& host) {
  const auto role = host.props.find("role");
  return role != host.props.end() && role->second.value == "gpu";
}

std::string listed(const std::vector<std::string>& names) {
  if (names.size() == 1) return names.front();
  std::string text;
  for (std::size_t i = 0; i + 1 < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text + " and " + names.back();
}

class Inference {
 public:
  explicit Inference(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(int line, const std::string& rule) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line, rule));
  }

  long long integer(const HostRecord& host, const char* prop, long long min, long long max, const char* rule) const {
    const PropText& text = host.props.at(prop);
    const std::optional<long long> value = parse_integer(text.value);
    if (!value || *value < min || *value > max)
      fail(text.line, fmt::format("host {}: property {} must be {}, got {}", host.name, prop, rule, text.value));
    return *value;
  }

  std::int64_t memory(const HostRecord& host) const {
    const PropText& text = host.props.at("memory");
    const std::optional<double> bytes = parse_size(text.value);
    if (!bytes || !(*bytes >= 1) || !(*bytes < 9.2e18))
      fail(text.line, fmt::format("host {}: property memory must be a positive size in SimGrid's units such as "
                                  "80GiB, 80GB or 1e10 (bytes), got {}",
                                  host.name, text.value.empty() ? "nothing" : text.value));
    return static_cast<std::int64_t>(std::llround(*bytes));
  }

 private:
  const std::string& path_;
};

}  // namespace

void infer_gpus(const std::string& path, const std::vector<HostRecord>& hosts, PlatformFacts& facts) {
  const Inference check(path);
  const bool roles_given = std::any_of(hosts.begin(), hosts.end(), is_gpu_role);
  if (!roles_given && !hosts.empty())
    facts.inferences.push_back(fmt::format(
        "GPUs: no host has role=gpu, so each of the {} hosts is taken as a GPU ({})", hosts.size(),
        hosts.size() == 1 ? hosts.front().name : hosts.front().name + " to " + hosts.back().name));
  // First the GPUs whose node the file gives, so that inferred nodes are numbered after them.
  std::vector<const HostRecord*> gpus;
  int next_node = 0;
  for (const HostRecord& host : hosts) {
    if (roles_given && !is_gpu_role(host)) {
      facts.other_hosts.push_back(host.name);
      continue;
    }
    gpus.push_back(&host);
    std::vector<std::string> missing;
    const bool has_node = host.props.contains("node"), has_gpu = host.props.contains("gpu");
    // A cluster's hosts, and any host of a file without roles, may leave both to inference.
    const bool placed_by_inference = !has_node && !has_gpu && (host.cluster >= 0 || !roles_given);
    if (!placed_by_inference) {
      if (!has_node) missing.push_back("node");
      if (!has_gpu) missing.push_back("gpu");
    }
    if (!host.props.contains("memory") && roles_given) missing.push_back("memory");
    if (!missing.empty())
      check.fail(host.line, fmt::format("host {}: a GPU host (role gpu) needs propert{} {}", host.name,
                                        missing.size() == 1 ? "y" : "ies", listed(missing)));
    if (has_node)
      next_node = std::max(next_node, static_cast<int>(check.integer(host, "node", 0, 1'000'000'000, "a non-negative integer")) + 1);
  }

  std::map<std::pair<int, int>, std::string> slots;
  std::map<int, std::vector<std::string>> inferred_hosts_of_cluster;  // cluster (-1: <host>s) → GPU names
  std::map<int, int> per_node_of_cluster;
  std::vector<std::string> defaulted_memory;
  int last_cluster = -2, cluster_first_node = 0;
  for (const HostRecord* host : gpus) {
    GpuHost gpu;
    gpu.name = host->name;
    gpu.speed = host->speed;
    gpu.line = host->line;
    if (host->props.contains("node")) {
      gpu.node = static_cast<int>(check.integer(*host, "node", 0, 1'000'000'000, "a non-negative integer"));
      gpu.gpu = static_cast<int>(check.integer(*host, "gpu", 0, 1'000'000'000, "a non-negative integer"));
    } else if (host->cluster >= 0) {
      int per_node = 1;
      if (host->props.contains("gpus_per_node"))
        per_node = static_cast<int>(check.integer(*host, "gpus_per_node", 1, 1'000'000, "a positive integer"));
      if (host->cluster != last_cluster) cluster_first_node = next_node;
      last_cluster = host->cluster;
      gpu.node = cluster_first_node + host->index_in_cluster / per_node;
      gpu.gpu = host->index_in_cluster % per_node;
      next_node = std::max(next_node, gpu.node + 1);
      per_node_of_cluster[host->cluster] = per_node;
      inferred_hosts_of_cluster[host->cluster].push_back(host->name);
    } else {
      gpu.node = next_node++;
      gpu.gpu = 0;
      inferred_hosts_of_cluster[-1].push_back(host->name);
    }
    if (host->props.contains("memory")) {
      gpu.memory = check.memory(*host);
    } else {
      gpu.memory = static_cast<std::int64_t>(*parse_size(kDefaultGpuMemory));
      defaulted_memory.push_back(host->name);
    }
    if (const auto model = host->props.find("gpu_model"); model != host->props.end()) gpu.model = model->second.value;
    const auto [first, added] = slots.emplace(std::pair(gpu.node, gpu.gpu), gpu.name);
    if (!added)
      check.fail(host->line, fmt::format("host {}: node {} gpu {} is already host {}", gpu.name, gpu.node, gpu.gpu,
                                         first->second));
    facts.gpus.push_back(std::move(gpu));
  }

  for (const auto& [cluster, names] : inferred_hosts_of_cluster) {
    if (cluster < 0) {
      facts.inferences.push_back(fmt::format("nodes: the {} GPU hosts without node and gpu props are one node each",
                                             names.size()));
      continue;
    }
    const int per_node = per_node_of_cluster[cluster];
    const std::string& id = facts.clusters[cluster].id;
    facts.inferences.push_back(
        per_node == 1
            ? fmt::format("nodes: cluster {}'s {} GPUs are one node each (no gpus_per_node prop), in host order",
                          id, names.size())
            : fmt::format("nodes: cluster {}'s {} GPUs are grouped {} consecutive hosts per node (gpus_per_node {})",
                          id, names.size(), per_node, per_node));
  }
  if (!defaulted_memory.empty())
    facts.inferences.push_back(fmt::format(
        "memory: {} = {} bytes on the {} GPUs without a memory prop (pipegrid's default for inferred GPUs: the HBM "
        "of an 80 GB A100 or H100)",
        kDefaultGpuMemory, static_cast<std::int64_t>(*parse_size(kDefaultGpuMemory)), defaulted_memory.size()));

  std::sort(facts.gpus.begin(), facts.gpus.end(),
            [](const GpuHost& a, const GpuHost& b) { return std::pair(a.node, a.gpu) < std::pair(b.node, b.gpu); });
  std::set<int> nodes;
  for (std::size_t i = 0; i < facts.gpus.size(); ++i) {
    facts.gpu_index.emplace(facts.gpus[i].name, i);
    nodes.insert(facts.gpus[i].node);
  }
  facts.nodes = static_cast<int>(nodes.size());
}

}  // namespace pipegrid::platform
