#include "common/child_groups.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/exit_codes.h"
#include "common/interruption.h"

namespace pipegrid {

namespace {

// Holds SIGINT and SIGTERM back for its life; one that arrives meanwhile is delivered on its end.
class InterruptionsHeld {
 public:
  InterruptionsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int s : interruption::kSignals) sigaddset(&held, s);
    pthread_sigmask(SIG_BLOCK, &held, &before_);
  }
  ~InterruptionsHeld() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }
  InterruptionsHeld(const InterruptionsHeld&) = delete;
  InterruptionsHeld& operator=(const InterruptionsHeld&) = delete;
  /// The mask to set at the end instead of the one before (a child's own).
  void end_with(const sigset_t& mask) { before_ = mask; }

 private:
  sigset_t before_;
};

// In the child, between fork and its return, signals held: async-signal-safe calls only.
void settle_child(pid_t group, pid_t parent) {
  // Also done by the parent: whichever runs first, the group exists before either goes on (the
  // shells' way; POSIX setpgid's rationale).
  setpgid(0, group);
  // Out of the terminal's foreground group, a write to the terminal under `stty tostop` would stop
  // the child (SIGTTOU) and hang its parent's wait; ignored, the write goes through as from the shell's.
  signal(SIGTTOU, SIG_IGN);
  interruption::forget_all_after_fork();
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) _exit(kExitInternalError);
  // The parent may have died before the prctl: then no signal will come, and the child is an orphan.
  // It ends as the signal it holds says (the group's SIGINT, held since the fork), else as SIGTERM.
  if (getppid() != parent) {
    sigset_t pending;
    sigpending(&pending);
    _exit(interruption::exit_code(sigismember(&pending, SIGINT) == 1 ? SIGINT : SIGTERM));
  }
}

}  // namespace

ChildGroups::ChildGroups(Grouping grouping) : grouping_(grouping) { interruption::install(); }

ChildGroups::~ChildGroups() {
  for (const auto& [group, slot] : slot_) interruption::forget(slot);
}

pid_t ChildGroups::fork_child(const sigset_t* child_mask) {
  if (gettid() != getpid())
    throw std::logic_error("a child must be forked on the main thread: its PDEATHSIG fires when the forking thread ends");
  // A shared group lives while one of its children is unreaped (a zombie still belongs to it).
  const pid_t join = grouping_ == Grouping::Shared && !group_.empty() ? group_.begin()->second : 0;
  const pid_t parent = getpid();
  InterruptionsHeld held;
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    settle_child(join, parent);
    if (child_mask) held.end_with(*child_mask);
    return 0;  // the signals held are let through here, with the child's own (empty) last words
  }
  const pid_t group = join ? join : pid;
  // EACCES once the child has exec'd: it set its group itself before.
  setpgid(pid, group);
  group_[pid] = group;
  if (!join) slot_[group] = interruption::kill_group_on_interrupt(group);
  return pid;
}

void ChildGroups::reaped(pid_t pid) {
  const auto it = group_.find(pid);
  if (it == group_.end()) return;
  const pid_t group = it->second;
  group_.erase(it);
  for (const auto& [child, its_group] : group_)
    if (its_group == group) return;
  interruption::forget(slot_[group]);
  slot_.erase(group);
}

pid_t ChildGroups::group_of(pid_t pid) const {
  const auto it = group_.find(pid);
  if (it == group_.end()) throw std::logic_error("group_of: " + std::to_string(pid) + " is not a child being run");
  return it->second;
}

}  // namespace pipegrid
