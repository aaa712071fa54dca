#include "sim/run/run_log.h"

#include <set>

#include "common/log.h"
#include "schedules/comm_plan.h"
#include "schedules/p2p_mode.h"

namespace pipegrid::run {

void log_resolved_run(const RunSpec& spec, const ResolvedRun& run) {
  spdlog::logger& logger = log::run();
  if (!logger.should_log(spdlog::level::debug)) return;
  const sim::SimulationInput& in = run.input;
  const sim::ParallelSizes& sizes = in.placement.sizes();
  std::set<int> nodes;
  for (int g = 0; g < in.placement.num_gpus(); ++g) nodes.insert(in.platform_gpus[g].node);
  const CommPlan plan = spec.schedule.comm_plan;
  const std::string plan_name = run.own_comms               ? std::string("its own")
                                : plan == CommPlan::Framework ? std::string(comm_plan_name(plan_of_framework(in.schedule)))
                                                              : std::string(comm_plan_name(plan));
  logger.debug(
      "layout: {} GPUs = tp {} × pp {} × dp {} on {} node{} ({}), schedule {}, m = {}, v = {}, comm plan {}, "
      "p2p {}",
      in.placement.num_gpus(), sizes.tp, sizes.pp, sizes.dp, nodes.size(), nodes.size() == 1 ? "" : "s",
      spec.parallel.placement, in.schedule.name, in.schedule.microbatches, in.schedule.chunks, plan_name,
      p2p_mode_name(in.options.p2p));
  const std::string& dir = spec.outputs.dir;
  logger.debug("costs: {}; tp-comm {}, dp-comm {}, {} step{}; {} ops per step over the ranks; {}",
               run.model ? "model " + run.model->name : std::string("explicit times"),
               name_of<sim::CommFidelity>(sim::kCommFidelities, in.options.tp_comm),
               name_of<sim::CommFidelity>(sim::kCommFidelities, in.options.dp_comm), in.options.steps,
               in.options.steps == 1 ? "" : "s", in.schedule.num_ops(),
               dir.empty() ? std::string("no --out: no files, no link load over time") : "files under " + dir);
}

}  // namespace pipegrid::run
