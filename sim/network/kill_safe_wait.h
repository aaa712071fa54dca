// Waiting on a SimGrid condition variable in a way a deadlock can end. When every actor is blocked,
// SimGrid kills them all: the wait throws ForcefulKillException without taking the mutex back, so the
// unique_lock must not unlock it as the stack unwinds. With thread contexts (the sanitizer build) that
// unlock is a simcall from a dying actor, which never returns, and the run hangs instead of reporting
// its deadlock (exit 3).
#pragma once

#include <mutex>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

namespace pipegrid::sim {

/// Waits on `changed` until `done()` holds, `lock` held on return; on a kill, rethrows with `lock`
/// released but not unlocked.
template <class Done>
void wait_until(simgrid::s4u::ConditionVariable& changed, std::unique_lock<simgrid::s4u::Mutex>& lock, Done done) {
  try {
    while (!done()) changed.wait(lock);
  } catch (const simgrid::ForcefulKillException&) {
    lock.release();
    throw;
  }
}

}  // namespace pipegrid::sim
