#include "sim/cli/platform_command.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>

#include "common/input_error.h"
#include "sim/cli/exit_codes.h"
#include "sim/platform/cluster_spec.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_summary.h"
#include "sim/platform/platform_xml.h"
#include "sim/platform/route_query.h"

namespace pipegrid::cli {

namespace {

// CLI11 fills a plain value; the callback copies it into the optional only when the flag was given,
// so that an absent flag keeps the preset's value.
template <typename Value>
struct OptionalFlag {
  Value value{};
  CLI::Option* option = nullptr;
  std::optional<Value> get() const { return option->count() ? std::optional<Value>(value) : std::nullopt; }
};

struct GenFlags {
  platform::ClusterOptions options;
  OptionalFlag<std::string> nvlink_bandwidth, ib_bandwidth;
  OptionalFlag<long> nics_per_node, nodes_per_leaf;
  OptionalFlag<double> oversubscription;
};

struct InfoFlags {
  std::string file;
  std::vector<std::string> route;  // two host names
};

void add_gen(CLI::App& platform, std::function<int()>& run) {
  auto flags = std::make_shared<GenFlags>();
  CLI::App* gen = platform.add_subcommand(
      "gen", "Write the SimGrid platform file of a GPU cluster to stdout (platforms/README.md explains it)");
  gen->add_option("--preset", flags->options.preset, "dgx-a100, dgx-h100 or h800")->required();
  gen->add_option("--nodes", flags->options.nodes, "nodes of 8 GPUs")->required();
  flags->nvlink_bandwidth.option = gen->add_option(
      "--nvlink-bw", flags->nvlink_bandwidth.value, "one GPU's NVLink per direction: 300GBps, 2400Gbps or bytes/s");
  flags->ib_bandwidth.option =
      gen->add_option("--ib-bw", flags->ib_bandwidth.value, "one InfiniBand port per direction: 25GBps, 200Gbps, …");
  flags->nics_per_node.option =
      gen->add_option("--nics-per-node", flags->nics_per_node.value, "InfiniBand ports (rails) per node: 1, 2, 4 or 8");
  flags->oversubscription.option = gen->add_option(
      "--oversubscription", flags->oversubscription.value, "leaf down- over uplink capacity, at least 1 (non-blocking)");
  flags->nodes_per_leaf.option =
      gen->add_option("--nodes-per-leaf", flags->nodes_per_leaf.value, "nodes under one leaf switch (scalable unit)");
  gen->callback([&run, flags] {
    run = [flags] {
      platform::ClusterOptions options = flags->options;
      options.nvlink_bandwidth = flags->nvlink_bandwidth.get();
      options.ib_bandwidth = flags->ib_bandwidth.get();
      options.nics_per_node = flags->nics_per_node.get();
      options.oversubscription = flags->oversubscription.get();
      options.nodes_per_leaf = flags->nodes_per_leaf.get();
      platform::write_platform_xml(std::cout, platform::make_cluster_spec(options));
      return kExitOk;
    };
  });
}

void add_info(CLI::App& platform, std::function<int()>& run) {
  auto flags = std::make_shared<InfoFlags>();
  CLI::App* info = platform.add_subcommand(
      "info", "Check a platform file and summarise it; with --route, the route SimGrid computes between two hosts");
  info->add_option("file", flags->file, "a SimGrid platform file (DTD 4.1)")->required();
  info->add_option("--route", flags->route, "two host names, e.g. --route node0-gpu0 node1-gpu0")->expected(2);
  info->callback([&run, flags] {
    run = [flags] {
      const platform::PlatformFacts facts = platform::read_platform(flags->file);
      // Checked here, before SimGrid starts, so that a typo is our one line and not a SimGrid abort.
      for (const std::string& host : flags->route)
        if (!facts.has_host(host))
          throw InputError(fmt::format("--route {}: no host of that name in {}", host, flags->file));
      platform::describe_platform(std::cout, facts);
      if (flags->route.size() == 2) {
        const auto routes = platform::simgrid_routes(flags->file, {{flags->route[0], flags->route[1]}});
        std::cout << '\n';
        platform::describe_route(std::cout, facts, routes.front());
      }
      return kExitOk;
    };
  });
}

}  // namespace

void add_platform_commands(CLI::App& app, std::function<int()>& run) {
  CLI::App* platform = app.add_subcommand("platform", "Generate or inspect SimGrid platform files of GPU clusters");
  platform->require_subcommand(1);
  add_gen(*platform, run);
  add_info(*platform, run);
}

}  // namespace pipegrid::cli
