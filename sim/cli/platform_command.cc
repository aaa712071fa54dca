#include "sim/cli/platform_command.h"

#include <fmt/format.h>
#include <iostream>
#include <memory>

#include "common/input_error.h"
#include "common/exit_codes.h"
#include "sim/cli/command_options.h"
#include "sim/cli/platform_perturb.h"
#include "sim/platform/cluster_spec.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_summary.h"
#include "sim/platform/platform_xml.h"
#include "sim/platform/route_query.h"

namespace pipegrid::cli {

namespace {

void add_gen(CLI::App& platform, std::function<int()>& run) {
  CLI::App* gen = platform.add_subcommand(
      "gen", "Write the SimGrid platform file of a GPU cluster to stdout (platforms/README.md explains it)");
  auto options = std::make_shared<CommandOptions>(*gen, input::Command::PlatformGen);
  gen->callback([&run, options] {
    run = [options] {
      const input::OptionValues v = options->values();
      v.check_required();
      platform::ClusterOptions cluster;
      cluster.preset = v.text("preset");
      cluster.nodes = v.integer("nodes");
      if (v.has("nvlink-bw")) cluster.nvlink_bandwidth = v.text("nvlink-bw");
      if (v.has("ib-bw")) cluster.ib_bandwidth = v.text("ib-bw");
      if (const auto nics = v.given_int("nics-per-node")) cluster.nics_per_node = *nics;
      cluster.oversubscription = v.given_number("oversubscription");
      if (const auto per_leaf = v.given_int("nodes-per-leaf")) cluster.nodes_per_leaf = *per_leaf;
      platform::write_platform_xml(std::cout, platform::make_cluster_spec(cluster));
      return kExitOk;
    };
  });
}

void add_info(CLI::App& platform, std::function<int()>& run) {
  CLI::App* info = platform.add_subcommand(
      "info", "Check a platform file and summarise it; with --route, the route SimGrid computes between two hosts");
  auto options = std::make_shared<CommandOptions>(*info, input::Command::PlatformInfo);
  info->callback([&run, options] {
    run = [options] {
      const input::OptionValues v = options->values();
      v.check_required();
      const std::string& file = v.text("file");
      const std::vector<std::string> route = v.names("route");
      const platform::PlatformFacts facts = platform::read_platform(file);
      // Checked here, before SimGrid starts, so that a typo is our one line and not a SimGrid abort.
      for (const std::string& host : route)
        if (!facts.has_host(host)) throw InputError(fmt::format("--route {}: no host of that name in {}", host, file));
      platform::describe_platform(std::cout, facts);
      if (route.size() == 2) {
        const auto routes = platform::simgrid_routes(file, {{route[0], route[1]}});
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
  add_perturb(*platform, run);
}

}  // namespace pipegrid::cli
