// The last resort: what SimGrid kills the process for, despite pipegrid's checks, ends in pipegrid's
// one line and exit code. Each case runs in a child process, since the point is that it dies.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include "platform_test_support.h"
#include "sim/simgrid/simgrid_engine.h"

namespace pipegrid::sim {
namespace {

struct Death {
  int exit_code = -1;
  std::string err;
};

// Runs `body` in a child whose stderr is captured; the child ends as `body` makes it end.
template <typename Body>
Death in_child(Body body) {
  const std::string err_path = platform::test_support::temp_dir() + "err" + std::to_string(getpid());
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status), platform::test_support::read_text(err_path)};
}

// A platform whose zone routing SimGrid does not know: loaded here without pipegrid's reader, which
// would refuse it, so that SimGrid's own xbt_die ("Not a valid model!") is what happens.
std::string bogus_platform() {
  return platform::test_support::write_temp_file(
      "bogus.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Bogus\">\n"
      "    <host id=\"h\" speed=\"1f\"/>\n  </zone>\n</platform>\n");
}

// An engine as the executor makes one, with `platform` loaded and `then` run before the engine ends.
template <typename Then>
void engine_with(const std::string& platform, Then then) {
  int argc = 1;
  char name[] = "pipegrid";
  char* argv[] = {name, nullptr};
  use_sanitizable_contexts();
  simgrid::s4u::Engine engine(&argc, argv);
  SimGridErrors errors;
  load_platform(engine, errors, platform, /*default_network_model=*/false);
  then(engine);
}

TEST(SimGridErrors, AnAbortWhileLoadingIsOneLineNamingTheFile) {
  const std::string path = bogus_platform();
  const Death death = in_child([&] { engine_with(path, [](simgrid::s4u::Engine&) {}); });
  EXPECT_EQ(death.exit_code, 2);
  EXPECT_EQ(death.err, "pipegrid: error: " + path + ": SimGrid cannot load it: Not a valid model!\n");
}

TEST(SimGridErrors, AnExceptionEscapingAnActorIsAnInternalError) {
  const std::string path = platform::test_support::write_temp_file(
      "one.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n"
      "    <host id=\"h\" speed=\"1f\"/>\n  </zone>\n</platform>\n");
  const Death death = in_child([&] {
    engine_with(path, [](simgrid::s4u::Engine& engine) {
      simgrid::s4u::Actor::create("thrower", engine.host_by_name("h"), [] { throw std::runtime_error("boom"); });
      engine.run();
    });
  });
  EXPECT_EQ(death.exit_code, 70);
  // One line, which names the exception; SimGrid's own dump and backtrace are not shown.
  ASSERT_FALSE(death.err.empty());
  EXPECT_EQ(std::count(death.err.begin(), death.err.end(), '\n'), 1) << death.err;
  EXPECT_TRUE(death.err.starts_with("pipegrid: internal error: SimGrid: ")) << death.err;
  EXPECT_NE(death.err.find("boom"), std::string::npos) << death.err;
}

}  // namespace
}  // namespace pipegrid::sim
