#include "common/standard_output.h"

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <unistd.h>

#include "common/fd_output.h"
#include "common/io_error.h"

namespace pipegrid {

namespace {

// Never destroyed: std::cout is flushed once more when the program's statics are torn down, and its
// buffer must still be there then.
FdOutput* watched = nullptr;
bool reported = false;

}  // namespace

void watch_stdout() {
  if (watched) return;
  watched = new FdOutput(STDOUT_FILENO);
  std::cout.rdbuf(watched);
}

void finish_stdout() {
  if (reported) return;
  std::cout.flush();
  errno = 0;
  // Whatever went through C's stdio instead (a library's printf) is checked as well.
  const bool c_stdio_ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
  int error = watched ? watched->error() : 0;
  if (error == 0 && !c_stdio_ok) error = errno != 0 ? errno : EIO;
  if (error == 0 && std::cout.fail()) error = EIO;
  if (error == 0) return;
  reported = true;
  throw_io_error("stdout", error);
}

}  // namespace pipegrid
