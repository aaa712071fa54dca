// A GPU's communication stream: collectives launched by the GPU's compute (gradient buckets during
// the backward, a parameter all-gather before the next forward) run here, in launch order, while the
// compute goes on — as NCCL kernels on their own CUDA stream. One SimGrid actor per stream, started on
// first use, runs collectives as flows; its waits on the network are the stream's
// (Transfers::register_comm_stream). Collectives of known duration need no actor (launch_timed): an
// actor's stack costs memory, thousands of them at scale.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "sim/network/transfers.h"

namespace pipegrid::sim {

/// Held by shared_ptr: its actor keeps it alive until it has seen it closed, after the GPU is gone.
class CommStream : public std::enable_shared_from_this<CommStream> {
 public:
  using Collective = std::function<void()>;  // runs in the stream's actor, blocking it until done

  CommStream(Transfers& transfers, int gpu, simgrid::s4u::Host* host, std::string name);

  /// Queues a collective behind the ones launched before it; returns its number (0, 1, …).
  std::size_t launch(Collective collective);
  /// Queues a collective of known duration (an α-β time): no actor runs it, the stream only books
  /// its time. Returns its number and its [start, end]. A stream takes one kind of collective or the
  /// other, never both.
  std::tuple<std::size_t, double, double> launch_timed(double seconds);
  /// Blocks the caller (the GPU's compute) until collective `number` and every one before it ended.
  void wait_for(std::size_t number);
  /// Blocks until every collective launched so far has ended.
  void wait_all() {
    if (launched_ > 0) wait_for(launched_ - 1);
  }
  /// Lets the stream's actor end once its queue is empty (the GPU is done).
  void close();
  std::size_t launched() const { return launched_; }

 private:
  void run();

  Transfers& transfers_;
  int gpu_;
  simgrid::s4u::Host* host_;
  std::string name_;
  bool started_ = false;
  bool closed_ = false;
  std::deque<Collective> queue_;
  std::size_t launched_ = 0, done_ = 0;
  std::vector<double> timed_ends_;  // launch_timed: when each collective ends
  double free_at_ = 0;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace pipegrid::sim
