// Comm plans: how a compute-only schedule is lowered to the comm actions a framework posts — which
// sends and receives go into one batch, where in the program they sit and where the rank waits.
// docs/design.md ("Comm plans") says for each plan where its order comes from.
#pragma once

#include <span>
#include <string_view>

#include "common/named.h"

#include "schedules/schedule.h"

namespace pipegrid {

enum class CommPlan {
  Framework,      // the plan of the framework that ships the schedule (plan_of_framework)
  Megatron,       // Megatron-LM's p2p_communication calls, batched with batch_isend_irecv and waited at once
  Torch,          // torch.distributed.pipelining's _add_send_recv, each action waited where it is used
  DualPipe,       // DeepSeek's DualPipe
  Zb,             // the zero-bubble repository's
  PerOp,          // the sends after an op and the receives of the next one, one batch waited at once
  BlockingCalls,  // torch.distributed.send / recv one by one: each send after its op, each receive
                  // before its op, each waited at once — the naive order that deadlocks 1F1B
};

/// Every plan by the name --comm-plan takes, in the order `pipegrid options` lists them.
std::span<const Named<CommPlan>> comm_plans();
std::string_view comm_plan_name(CommPlan plan);

/// The plan `framework` means for a schedule, by its generator's name (a hand-written one's is
/// PyTorch's, whose CSV format it is): docs/design.md, "Comm plans", has the table.
CommPlan plan_of_framework(const Schedule& schedule);

/// The schedule with its comm actions: a copy of a lowered schedule as it is, otherwise the compute
/// programs lowered by the plan. The frameworks' plans keep validate_comms' rules; per-op and
/// blocking-calls, which no framework uses, make the ranks of the V-shaped and two-direction
/// schedules post their messages to each other in different orders, which validate_comms refuses.
/// InputError when a framework's plan does not apply (DualPipe's to another order, Megatron's
/// interleaved on two ranks).
Schedule lower(const Schedule& schedule, CommPlan plan);

}  // namespace pipegrid
