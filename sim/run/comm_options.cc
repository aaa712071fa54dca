#include "sim/run/comm_options.h"

#include "common/choose.h"

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

}  // namespace pipegrid::run
