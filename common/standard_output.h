// stdout as pipegrid writes it: std::cout through a buffer that keeps a failed write's reason
// (fd_output.h), and the check every command ends with (sim/cli/app.cc, guarded): a result that could
// not be written is exit code 74, "pipegrid: error: stdout: No space left on device", never a silent
// 0. A closed pipe (`pipegrid … | head -1`) never gets that far: SIGPIPE's default action, which
// pipegrid leaves alone, ends the process at the write without a word, as it ends `seq` (status 141
// in the shell).
#pragma once

namespace pipegrid {

/// Puts std::cout on the checked buffer. Called first thing in main, before anything is printed.
void watch_stdout();

/// Flushes std::cout and C's stdout and checks that every write to them went through; IoError
/// "stdout: …" otherwise, once (a second call after a reported failure returns).
void finish_stdout();

}  // namespace pipegrid
