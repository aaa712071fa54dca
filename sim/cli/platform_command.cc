#include "sim/cli/platform_command.h"

#include <fmt/format.h>
#include <iostream>

#include "common/input_error.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "sim/cli/platform_perturb.h"
#include "sim/cli/subcommand.h"
#include "sim/exec/group_landing.h"
#include "sim/platform/cluster_spec.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_summary.h"
#include "sim/platform/platform_xml.h"
#include "sim/platform/route_query.h"
#include "sim/run/generated_platform.h"

namespace pipegrid::cli {

namespace {

int run_gen(const input::OptionValues& v) {
  v.check_required();
  const platform::ClusterSpec cluster = run::generated_cluster(v);
  for (const std::string& note : platform::no_effect_options(run::cluster_options(v), cluster))
    log::platform().warn(note);
  platform::write_platform_xml(std::cout, cluster);
  return kExitOk;
}

// --layout: the job's groups over this platform's GPUs, as a run would place them (placement.h).
void describe_layout(std::ostream& out, const input::OptionValues& v, const platform::PlatformFacts& facts) {
  sim::ParallelSizes sizes{static_cast<int>(v.integer("tp")), v.given_int("pp").value_or(1),
                           static_cast<int>(v.integer("dp"))};
  sizes.ep = static_cast<int>(v.integer("ep"));
  sizes.cp = static_cast<int>(v.integer("cp"));
  sizes.etp = v.given_int("etp").value_or(sizes.tp);
  const bool experts = v.has("ep") || v.has("etp");
  std::vector<sim::PlatformGpu> gpus;
  for (const platform::GpuHost& gpu : facts.gpus) gpus.push_back({gpu.name, gpu.node});
  const sim::Placement placement(sizes, v.text("placement"), gpus, /*allow_tp_across_nodes=*/true);
  std::string order;
  for (const model::RankDimension& d : placement.layout().dims()) order += (order.empty() ? "" : "-") + d.name;
  out << fmt::format("\nlayout {}: {} of {} GPUs (tp {} × cp {} × dp {} × pp {}", order, placement.num_gpus(),
                     gpus.size(), sizes.tp, sizes.cp, sizes.dp, sizes.pp);
  if (experts) out << fmt::format("; expert layers etp {} × ep {} × edp {}", sizes.etp, sizes.ep, sizes.expert_dp());
  out << ")\n" << fmt::format("{:<6}{:>6}{:>8}{:>15}  {}\n", "group", "size", "groups", "within a node",
                               "GPU 0's group");
  for (const sim::GroupLanding& landing : sim::group_landings(placement, gpus, experts)) {
    std::string hosts;
    for (int gpu : landing.rank0) hosts += (hosts.empty() ? "" : " ") + gpus[gpu].host;
    out << fmt::format("{:<6}{:>6}{:>8}{:>15}  {}\n", landing.kind, landing.size, landing.groups, landing.within_node,
                       hosts);
  }
}

int run_info(const input::OptionValues& v) {
  v.check_required();
  const std::string& file = v.text("file");
  const std::vector<std::string> route = v.names("route");
  const platform::PlatformFacts facts = platform::read_platform(file);
  // Checked here, before SimGrid starts, so that a typo is our one line and not a SimGrid abort.
  for (const std::string& host : route) {
    if (!facts.has_host(host)) throw InputError(fmt::format("--route {}: no host of that name in {}", host, file));
    // SimGrid dies (xbt_die) on a route from or to a host of a zone routed None.
    if (route.size() == 2 && route[0] != route[1] && facts.zones[facts.zone_of_netpoint.at(host)].routing == "None")
      throw InputError(fmt::format("--route {}: {} is in a zone routed None, which has no routes", host, host));
  }
  // The layout's sizes mean something only to --layout: given without it, they would be ignored.
  if (!v.flag("layout"))
    for (const auto& [option, value] : v.given())
      if (option->section == "parallel")
        throw InputError(fmt::format("{}: lays out a job, which platform info shows with --layout", option->flag_name()));
  platform::describe_platform(std::cout, facts);
  if (v.flag("layout")) describe_layout(std::cout, v, facts);
  if (route.size() == 2) {
    const auto routes = platform::simgrid_routes(file, {{route[0], route[1]}});
    std::cout << '\n';
    platform::describe_route(std::cout, facts, routes.front());
  }
  return kExitOk;
}

}  // namespace

void add_platform_commands(CLI::App& app, std::function<int()>& run) {
  CLI::App* platform = app.add_subcommand("platform", "Generate or inspect SimGrid platform files of GPU clusters");
  platform->require_subcommand(1);
  add_subcommand(*platform, run, input::Command::PlatformGen, "gen",
                 "Write the SimGrid platform file of a GPU cluster to stdout (platforms/README.md explains it)", run_gen);
  add_subcommand(*platform, run, input::Command::PlatformInfo, "info",
                 "Check a platform file and summarise it; with --route, the route SimGrid computes between two hosts",
                 run_info);
  add_perturb(*platform, run);
}

}  // namespace pipegrid::cli
