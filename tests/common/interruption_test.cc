// A run's last words: each test forks a child that registers them and is then signalled, and reads
// what the child left behind, as a user's shell would after Ctrl-C or `kill`.
#include "common/interruption.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "temp_files.h"

namespace pipegrid::interruption {
namespace {

using test_support::fresh_dir;
using test_support::read_file;

// Runs `body` in a child, which then waits to be signalled; returns its exit status.
template <typename Body>
int child_signalled(int signal, Body body) {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    install();
    body();
    (void)!write(ready[1], "r", 1);
    for (;;) pause();
  }
  char byte;
  EXPECT_EQ(read(ready[0], &byte, 1), 1);
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(Interruption, SigtermWritesTheStatusAndEndsWith143) {
  const std::string dir = fresh_dir("interruption-status");
  const int status = child_signalled(SIGTERM, [&] {
    write_on_interrupt(dir + "/status.json", [](int s) { return std::string("interrupted by ") + signal_name(s); });
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_EQ(read_file(dir + "/status.json"), "interrupted by SIGTERM");
  EXPECT_FALSE(std::filesystem::exists(dir + "/status.json.interrupted"));
}

TEST(Interruption, SigintRemovesATemporaryFileAndEndsWith130) {
  const std::string dir = fresh_dir("interruption-unlink");
  std::ofstream(dir + "/trace.csv.tmp") << "half a row";
  std::ofstream(dir + "/kept.csv") << "a finished file";
  const int status = child_signalled(SIGINT, [&] { unlink_on_interrupt(dir + "/trace.csv.tmp"); });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(std::filesystem::exists(dir + "/trace.csv.tmp"));
  EXPECT_EQ(read_file(dir + "/kept.csv"), "a finished file");
}

TEST(Interruption, AForgottenSlotIsNotCarriedOut) {
  const std::string dir = fresh_dir("interruption-forget");
  std::ofstream(dir + "/renamed.csv") << "complete";
  const int status = child_signalled(SIGTERM, [&] { forget(unlink_on_interrupt(dir + "/renamed.csv")); });
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_EQ(read_file(dir + "/renamed.csv"), "complete");
}

TEST(Interruption, TheLineIsSaidOnStderrOnceTheFileIsWritten) {
  const std::string dir = fresh_dir("interruption-say");
  const std::string err = dir + "/stderr";
  const int status = child_signalled(SIGINT, [&] {
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    // Filled before the file's slot; carried out after it, kind by kind.
    say_on_interrupt([&](int s) { return std::string("pipegrid: interrupted by ") + signal_name(s) + "\n"; });
    write_on_interrupt(dir + "/status.json", [](int s) { return std::string("interrupted by ") + signal_name(s); });
  });
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(read_file(dir + "/status.json"), "interrupted by SIGINT");
  EXPECT_EQ(read_file(err), "pipegrid: interrupted by SIGINT\n");
}

TEST(Interruption, InstallPutsTheHandlersBackAfterALibraryReplacedThem) {
  const std::string dir = fresh_dir("interruption-again");
  const int status = child_signalled(SIGINT, [&] {
    write_on_interrupt(dir + "/status.json", [](int) { return std::string("interrupted"); });
    // As SimGrid's engine does when it is made: its own handler, which exit(1)s.
    std::signal(SIGINT, [](int) { _exit(1); });
    install();
  });
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(read_file(dir + "/status.json"), "interrupted");
}

TEST(Interruption, TheChildrensGroupGetsTheSameSignal) {
  const std::string dir = fresh_dir("interruption-group");
  // The grandchild says which signal reached it down this pipe, then ends.
  int told[2];
  ASSERT_EQ(pipe(told), 0);
  static int told_fd;
  told_fd = told[1];
  const int status = child_signalled(SIGTERM, [&] {
    // SIGTERM held back until the grandchild has its own handler: with the inherited one (the child's
    // last words) it would end without telling.
    sigset_t term, before;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &before);
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      setpgid(0, 0);
      signal(SIGTERM, [](int) {
        (void)!write(told_fd, "T", 1);
        _exit(0);
      });
      sigprocmask(SIG_SETMASK, &before, nullptr);
      for (;;) pause();
    }
    sigprocmask(SIG_SETMASK, &before, nullptr);
    setpgid(grandchild, grandchild);
    kill_group_on_interrupt(grandchild);
    write_on_interrupt(dir + "/done", [](int) { return "written after the group was signalled"; });
  });
  close(told[1]);
  EXPECT_EQ(WEXITSTATUS(status), 143);
  pollfd wait_for{.fd = told[0], .events = POLLIN, .revents = 0};
  ASSERT_EQ(poll(&wait_for, 1, 60'000), 1) << "the grandchild was never signalled";
  char byte = 0;
  EXPECT_EQ(read(told[0], &byte, 1), 1);
  EXPECT_EQ(byte, 'T');
  EXPECT_EQ(read_file(dir + "/done"), "written after the group was signalled");
}

}  // namespace
}  // namespace pipegrid::interruption
