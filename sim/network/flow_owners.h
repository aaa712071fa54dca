// The actors that make the flows' SimGrid activities: one per GPU that sends (--simgrid-flows exec).
// SimGrid 3.32 takes an ended activity out of its maker's list by walking it, and a host-to-host Comm is
// always maestro's, so every flow's end walked all flows in flight; an Exec on two hosts with no flops is
// the same network action and is its maker's. An owner is never suspended and never ends while its flows
// run (either would stop them); a flow requested in one round is made in the next, at the same time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <vector>

namespace pipegrid::sim {

class FlowOwners {
 public:
  /// Called in maestro with each exec made for a request, in the order of the requests: it sets the
  /// exec's hosts and bytes and starts it. Returns false when the flow failed as it started (a link of
  /// its route is down): `failed(id)` is then called for it from the owner, once back in its own
  /// context, as a flow that fails to start is reported from the actor that started it.
  using Launch = std::function<bool(std::uint64_t id, const simgrid::s4u::ExecPtr& exec)>;
  using Failed = std::function<void(std::uint64_t id)>;

  FlowOwners(std::vector<simgrid::s4u::Host*> hosts, Launch launch, Failed failed);
  FlowOwners(const FlowOwners&) = delete;
  FlowOwners& operator=(const FlowOwners&) = delete;

  /// Asks the owner of `src_gpu` (created on its host at its first request) to make flow `id`.
  /// Maestro context.
  void request(int src_gpu, std::uint64_t id);
  /// Owners created so far.
  int owners() const { return created_; }

 private:
  struct Owner {
    simgrid::s4u::SemaphorePtr wake;
    std::vector<std::uint64_t> queue;  // requests not yet taken by the owner
    bool signalled = false;            // `wake` released since the owner last took the queue
  };
  void run(int gpu);

  std::vector<simgrid::s4u::Host*> hosts_;
  Launch launch_;
  Failed failed_;
  std::vector<std::unique_ptr<Owner>> owners_;  // by GPU, null until its first request
  int created_ = 0;
};

}  // namespace pipegrid::sim
