// Children that end with their parent: each test makes a parent process (a fork of the test) that
// starts children through ChildGroups, signals the parent as a user, a shell or Slurm would, and reaps
// the orphaned children itself (it is their subreaper) to read how each ended: 130 for SIGINT passed
// on through the group, 143 for SIGTERM (passed on, or sent by the kernel as the PDEATHSIG).
#include "common/child_groups.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "common/interruption.h"
#include "processes.h"

namespace pipegrid {
namespace {

using test_support::eventually;

struct Family {
  pid_t parent = 0;
  std::vector<pid_t> children;
};

// A parent that starts `count` children grouped by `grouping`, each waiting to be signalled, tells
// their pids, then waits to be signalled itself. Orphans come to this process.
Family start_family(Grouping grouping, int count) {
  EXPECT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int told[2];
  EXPECT_EQ(pipe(told), 0);
  const pid_t parent = fork();
  if (parent == 0) {
    close(told[0]);
    ChildGroups groups(grouping);
    for (int i = 0; i < count; ++i) {
      const pid_t child = groups.fork_child();
      if (child == 0)
        for (;;) pause();
      (void)!write(told[1], &child, sizeof child);
    }
    for (;;) pause();
  }
  close(told[1]);
  Family family{parent, {}};
  for (pid_t child; family.children.size() < static_cast<std::size_t>(count) &&
                    read(told[0], &child, sizeof child) == static_cast<ssize_t>(sizeof child);)
    family.children.push_back(child);
  close(told[0]);
  EXPECT_EQ(family.children.size(), static_cast<std::size_t>(count));
  return family;
}

// The exit code `pid` ended with (-1: killed by a signal, or not ended within the bound).
int exit_code_of(pid_t pid) {
  int status = 0;
  const bool ended = eventually([&] { return waitpid(pid, &status, WNOHANG) == pid; });
  if (!ended) kill(pid, SIGKILL), waitpid(pid, &status, 0);
  return ended && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ChildGroups, EachChildLeadsAGroupOfItsOwn) {
  ChildGroups groups(Grouping::PerChild);
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    const pid_t child = groups.fork_child();
    if (child == 0)
      for (;;) pause();
    children.push_back(child);
  }
  for (pid_t child : children) {
    EXPECT_EQ(getpgid(child), child);
    EXPECT_EQ(groups.group_of(child), child);
    EXPECT_NE(getpgid(child), getpgrp());  // not the test's: a Ctrl-C of the terminal reaches the parent alone
  }
  for (pid_t child : children) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    groups.reaped(child);
  }
}

// The group is the first child's pid, kept while any child is unreaped; once all are, the next
// child makes a new one.
TEST(ChildGroups, ASharedGroupOutlivesItsFirstChildAndEndsWithItsLast) {
  ChildGroups groups(Grouping::Shared);
  const auto start = [&] {
    const pid_t child = groups.fork_child();
    if (child == 0)
      for (;;) pause();
    return child;
  };
  const auto end = [&](pid_t child) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    groups.reaped(child);
  };
  const pid_t first = start();
  const pid_t second = start();
  EXPECT_EQ(getpgid(first), first);
  EXPECT_EQ(getpgid(second), first);
  end(first);
  const pid_t third = start();
  EXPECT_EQ(getpgid(third), first);
  EXPECT_EQ(groups.group_of(third), first);
  end(second);
  end(third);
  const pid_t fourth = start();
  EXPECT_EQ(getpgid(fourth), fourth);
  EXPECT_EQ(groups.group_of(fourth), fourth);
  end(fourth);
}

TEST(ChildGroups, SigintToTheParentReachesEveryChildThroughItsGroup) {
  for (Grouping grouping : {Grouping::PerChild, Grouping::Shared}) {
    const Family family = start_family(grouping, 3);
    kill(family.parent, SIGINT);
    EXPECT_EQ(exit_code_of(family.parent), 130);
    // 130, not 143: the group's SIGINT came before the kernel's SIGTERM at the parent's death.
    for (pid_t child : family.children) EXPECT_EQ(exit_code_of(child), 130) << child;
  }
}

TEST(ChildGroups, SigkillOfTheParentEndsEveryChildWithSigterm) {
  const Family family = start_family(Grouping::Shared, 3);
  kill(family.parent, SIGKILL);
  EXPECT_EQ(exit_code_of(family.parent), -1);
  for (pid_t child : family.children) EXPECT_EQ(exit_code_of(child), 143) << child;
}

// A forked child inherits the parent's handler and slots: it must carry out none of the parent's last
// words (a sweep run signalled alone would otherwise signal its siblings and write the sweep's files).
// The parent signals its child itself and tells how the child ended.
TEST(ChildGroups, AChildDoesNotCarryOutItsParentsLastWords) {
  const std::string status = ::testing::TempDir() + "pipegrid-child-groups-" + std::to_string(getpid());
  std::filesystem::remove(status);
  int told[2];
  ASSERT_EQ(pipe(told), 0);
  const pid_t parent = fork();
  if (parent == 0) {
    interruption::install();
    interruption::write_on_interrupt(status, [](int) { return "the parent's"; });
    ChildGroups groups(Grouping::PerChild);
    const pid_t child = groups.fork_child();
    if (child == 0)
      for (;;) pause();
    kill(child, SIGTERM);
    int child_status = 0;
    waitpid(child, &child_status, 0);
    const int code = WIFEXITED(child_status) ? WEXITSTATUS(child_status) : -1;
    (void)!write(told[1], &code, sizeof code);
    for (;;) pause();
  }
  close(told[1]);
  int child_code = 0;
  ASSERT_EQ(read(told[0], &child_code, sizeof child_code), static_cast<ssize_t>(sizeof child_code));
  close(told[0]);
  EXPECT_EQ(child_code, 143);
  EXPECT_FALSE(std::filesystem::exists(status)) << "the child wrote its parent's last words";
  kill(parent, SIGTERM);
  EXPECT_EQ(exit_code_of(parent), 143);
  EXPECT_TRUE(std::filesystem::exists(status));
  std::filesystem::remove(status);
}

// PDEATHSIG fires when the forking thread ends, not the process: a worker thread may not fork.
TEST(ChildGroups, AChildIsForkedOnTheMainThreadOnly) {
  ChildGroups groups(Grouping::PerChild);
  std::thread worker([&] { EXPECT_THROW(groups.fork_child(), std::logic_error); });
  worker.join();
}

}  // namespace
}  // namespace pipegrid
