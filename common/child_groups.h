// Children that end with their parent (issue 33): a sweep's runs, a pitfall run's commands, plot
// scripts. Each child runs in a process group this process made, which the interruption handler sends
// the same SIGINT or SIGTERM (common/interruption.h), and asks the kernel for SIGTERM when its parent
// dies (prctl PR_SET_PDEATHSIG), so that a SIGKILL of the parent, which no handler sees, ends it too.
#pragma once

#include <csignal>
#include <map>
#include <sys/types.h>

namespace pipegrid {

enum class Grouping {
  /// Each child leads a group of its own, so that a signal to the group reaches the child's own
  /// children too: a pitfall's command may start processes (a lesson whose command recursed left
  /// hundreds behind), and its timeout must end them all. One interruption slot per running child.
  PerChild,
  /// Every child joins one group, made by the first child and kept while any child is unreaped: one
  /// interruption slot whatever the number of children (a sweep's --jobs may be far above
  /// interruption::kSlots). For children that start no processes of their own, as a sweep's runs
  /// (forks of this process running one simulation each): a timeout kills the child alone.
  Shared,
};

class ChildGroups {
 public:
  /// Installs the interruption handlers (interruption::install): a group they would not signal is no use.
  explicit ChildGroups(Grouping grouping);
  /// Forgets the slots; children still running then end with this process (their PDEATHSIG).
  ~ChildGroups();
  ChildGroups(const ChildGroups&) = delete;
  ChildGroups& operator=(const ChildGroups&) = delete;

  /// fork() into a group: returns the child's pid in the parent, 0 in the child. In the child, with
  /// async-signal-safe calls only (it may exec next): its group set, PDEATHSIG asked for, the parent's
  /// last words forgotten (interruption::forget_all_after_fork), then `child_mask` as its signal mask
  /// (nullptr: the caller's). A child whose parent died before it could ask exits 143 at once, as if
  /// the SIGTERM had come. SIGINT and SIGTERM are held back in the parent until the group's slot is
  /// filled, so none finds a child that its handler does not signal.
  /// PDEATHSIG fires when the forking *thread* ends: forks only on the main thread, which lives as long
  /// as the process (std::logic_error on another). std::runtime_error when fork fails.
  pid_t fork_child(const sigset_t* child_mask = nullptr);

  /// `pid` was reaped (waitpid returned it): its group's slot is forgotten once no child of the group is
  /// left. A pid this object did not fork is ignored.
  void reaped(pid_t pid);

  /// The group `pid` runs in, to signal it with its own children: kill(-group_of(pid), …). Valid until
  /// `pid` is reaped (a group's number is not reused while one of its processes is unreaped).
  pid_t group_of(pid_t pid) const;

 private:
  Grouping grouping_;
  std::map<pid_t, pid_t> group_;  // unreaped child → its group
  std::map<pid_t, int> slot_;     // group → its interruption slot
};

}  // namespace pipegrid
