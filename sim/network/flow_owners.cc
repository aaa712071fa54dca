#include "sim/network/flow_owners.h"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/simix.hpp>
#include <utility>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

FlowOwners::FlowOwners(std::vector<sg4::Host*> hosts, Launch launch, Failed failed)
    : hosts_(std::move(hosts)), launch_(std::move(launch)), failed_(std::move(failed)), owners_(hosts_.size()) {}

void FlowOwners::request(int src_gpu, std::uint64_t id) {
  std::unique_ptr<Owner>& owner = owners_[static_cast<std::size_t>(src_gpu)];
  if (!owner) {
    owner = std::make_unique<Owner>();
    owner->wake = sg4::Semaphore::create(0);
    sg4::Actor::create(fmt::format("flows-gpu{}", src_gpu), hosts_[static_cast<std::size_t>(src_gpu)],
                       [this, src_gpu] { run(src_gpu); })
        ->daemonize();
    ++created_;
  }
  owner->queue.push_back(id);
  if (!owner->signalled) {
    owner->signalled = true;
    owner->wake->release();
  }
}

void FlowOwners::run(int gpu) {
  Owner& owner = *owners_[static_cast<std::size_t>(gpu)];
  std::vector<std::uint64_t> batch, failed;
  std::vector<sg4::ExecPtr> execs;
  for (;;) {
    owner.wake->acquire();
    owner.signalled = false;
    batch.swap(owner.queue);
    // Made here, so that they are this actor's; set up and started in one simcall.
    execs.clear();
    for (std::size_t i = 0; i < batch.size(); ++i) execs.push_back(sg4::Exec::init());
    failed.clear();
    simgrid::kernel::actor::simcall_answered([&] {
      for (std::size_t i = 0; i < batch.size(); ++i)
        if (!launch_(batch[i], execs[i])) failed.push_back(batch[i]);
    });
    batch.clear();
    for (std::uint64_t id : failed) failed_(id);
  }
}

}  // namespace pipegrid::sim
