#include "sim/exec/collectives.h"

#include <algorithm>

namespace pipegrid::sim {

void ring_allreduce_flows(Transfers& transfers, const std::vector<int>& group, int member, double bytes,
                          FlowKind kind, std::uint64_t (*tag_of_step)(std::uint64_t, std::uint64_t),
                          std::uint64_t context) {
  const int n = static_cast<int>(group.size());
  if (n < 2 || bytes <= 0) return;
  const int me = group[member];
  const int next = group[(member + 1) % n];
  const int prev = group[(member + n - 1) % n];
  const double chunk = bytes / n;
  for (int step = 0; step < 2 * (n - 1); ++step) {
    const std::uint64_t tag = tag_of_step(context, static_cast<std::uint64_t>(step));
    if (step > 0) transfers.wait({next, tag_of_step(context, static_cast<std::uint64_t>(step - 1))}, /*as_sender=*/true);
    transfers.post_send({next, tag}, FlowInfo{kind, me, next, chunk}, /*eager=*/true, /*sender_waits=*/true);
    const MessageKey incoming{me, tag};
    transfers.post_receive(incoming, FlowInfo{kind, prev, me, chunk});
    // The next step forwards what this one received, so it cannot start before.
    transfers.wait(incoming, /*as_sender=*/false);
  }
  transfers.wait({next, tag_of_step(context, static_cast<std::uint64_t>(2 * (n - 1) - 1))}, /*as_sender=*/true);
}

double ring_allreduce_seconds(Network& network, const std::vector<int>& group, double bytes) {
  const int n = static_cast<int>(group.size());
  if (n < 2 || bytes <= 0) return 0;
  double bandwidth = 0, latency = 0;
  for (int i = 0; i < n; ++i) {
    const auto [bw, lat] = network.bottleneck_and_latency(group[i], group[(i + 1) % n]);
    bandwidth = i == 0 ? bw : std::min(bandwidth, bw);
    latency = std::max(latency, lat);
  }
  return 2.0 * (n - 1) / n * bytes / bandwidth + 2.0 * (n - 1) * latency;
}

}  // namespace pipegrid::sim
