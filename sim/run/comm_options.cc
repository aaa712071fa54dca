#include "sim/run/comm_options.h"

#include <fmt/format.h>

#include "common/choose.h"
#include "common/input_error.h"
#include "schedules/comm_check.h"

namespace pipegrid::run {

P2pMode p2p_mode_of(const input::OptionValues& v) {
  return choose<P2pMode>(
      "--p2p", v.text("p2p"),
      {{"async", P2pMode::Async}, {"rendezvous", P2pMode::Rendezvous}, {"blocking", P2pMode::Rendezvous}});
}

CommPlan comm_plan_of(const input::OptionValues& v) {
  return choose<CommPlan>("--comm-plan", v.text("comm-plan"),
                          {{"framework", CommPlan::Framework},
                           {"megatron", CommPlan::Megatron},
                           {"torch", CommPlan::Torch},
                           {"dualpipe", CommPlan::DualPipe},
                           {"zb", CommPlan::Zb},
                           {"per-op", CommPlan::PerOp},
                           {"blocking-calls", CommPlan::BlockingCalls}});
}

void validate_plan(const Schedule& lowered, const std::string& plan_name) {
  try {
    validate_comms(lowered);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--comm-plan {}: its order of {} cannot run on NCCL: {}", plan_name, lowered.name,
                                 e.what()));
  }
}

}  // namespace pipegrid::run
