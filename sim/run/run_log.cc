#include "sim/run/run_log.h"

#include <set>

#include "common/log.h"
#include "schedules/comm_plan.h"
#include "schedules/p2p_mode.h"

namespace pipegrid::run {

void log_resolved_run(const ResolvedRun& run, const input::OptionValues& v) {
  spdlog::logger& logger = log::run();
  if (!logger.should_log(spdlog::level::debug)) return;
  const sim::SimulationInput& in = run.input;
  const sim::ParallelSizes& sizes = in.placement.sizes();
  std::set<int> nodes;
  for (int g = 0; g < in.placement.num_gpus(); ++g) nodes.insert(in.platform_gpus[g].node);
  const std::string plan =
      v.has("schedule-file") && in.schedule.has_comms() && !v.has("comm-plan") ? std::string("its own")
      : v.text("comm-plan") == "framework" ? std::string(comm_plan_name(plan_of_framework(in.schedule)))
                                           : v.text("comm-plan");
  logger.debug(
      "layout: {} GPUs = tp {} × pp {} × dp {} on {} node{} ({}), schedule {}, m = {}, v = {}, comm plan {}, "
      "p2p {}",
      in.placement.num_gpus(), sizes.tp, sizes.pp, sizes.dp, nodes.size(), nodes.size() == 1 ? "" : "s",
      v.text("placement"), in.schedule.name, in.schedule.microbatches, in.schedule.chunks, plan,
      p2p_mode_name(in.options.p2p));
  logger.debug(
      "costs: {}; tp-comm {}, dp-comm {}, {} step{}; {} ops per step over the ranks; {}",
      run.model ? "model " + run.model->name : std::string("explicit times"), v.text("tp-comm"), v.text("dp-comm"),
      in.options.steps, in.options.steps == 1 ? "" : "s", in.schedule.num_ops(),
      run.out_dir.empty() ? std::string("no --out: no files, no link load over time") : "files under " + run.out_dir);
}

}  // namespace pipegrid::run
