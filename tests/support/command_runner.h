// Runs the pipegrid binary as a user would and captures what it prints and its exit code.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "temp_files.h"

namespace pipegrid::test_support {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// `pipegrid ARGS` through the shell; ARGS is shell text.
inline CommandResult run_pipegrid(const std::string& args) {
  char dir_template[] = "/tmp/pipegrid-cli-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string command = std::string(PIPEGRID_BINARY) + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_file(dir + "/out");
  result.err = read_file(dir + "/err");
  std::remove((dir + "/out").c_str());
  std::remove((dir + "/err").c_str());
  rmdir(dir.c_str());
  return result;
}

}  // namespace pipegrid::test_support
