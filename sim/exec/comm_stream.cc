#include "sim/exec/comm_stream.h"

#include <algorithm>
#include <simgrid/s4u/Engine.hpp>

#include "sim/network/kill_safe_wait.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

CommStream::CommStream(Transfers& transfers, int gpu, sg4::Host* host, std::string name)
    : transfers_(transfers), gpu_(gpu), host_(host), name_(std::move(name)) {}

std::size_t CommStream::launch(Collective collective) {
  if (!started_) {
    started_ = true;
    sg4::Actor::create(name_, host_, [self = shared_from_this()] { self->run(); });
  }
  std::unique_lock lock(*mutex_);
  queue_.push_back(std::move(collective));
  changed_->notify_all();
  return launched_++;
}

std::tuple<std::size_t, double, double> CommStream::launch_timed(double seconds) {
  const double start = std::max(free_at_, sg4::Engine::get_clock());
  free_at_ = start + seconds;
  timed_ends_.push_back(free_at_);
  return {launched_++, start, free_at_};
}

void CommStream::wait_for(std::size_t number) {
  if (number < timed_ends_.size()) {
    if (timed_ends_[number] > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(timed_ends_[number]);
    return;
  }
  std::unique_lock lock(*mutex_);
  wait_until(*changed_, lock, [&] { return done_ > number; });
}

void CommStream::close() {
  if (!started_) return;
  std::unique_lock lock(*mutex_);
  closed_ = true;
  changed_->notify_all();
}

void CommStream::run() {
  transfers_.register_comm_stream(gpu_);
  std::unique_lock lock(*mutex_);
  while (true) {
    wait_until(*changed_, lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return;
    Collective next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    next();
    lock.lock();
    ++done_;
    changed_->notify_all();
  }
}

}  // namespace pipegrid::sim
