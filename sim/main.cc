// pipegrid: a discrete-event simulator of pipeline-parallel LLM training. This file hands the command
// line to the app (sim/cli/app.h), which maps failures onto exit codes (docs/design.md, "Errors"), and
// installs the last resort for what no exception handler can catch: a crash ends in one line and exit
// code 70, never in a core dump or std::terminate's text.
#include <csignal>
#include <malloc.h>
#include <cstring>
#include <exception>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/exit_codes.h"
#include "common/interruption.h"
#include "common/sanitizers.h"
#include "common/standard_output.h"
#include "sim/cli/app.h"

namespace {

void say_and_exit(const char* what) {
  const char prefix[] = "pipegrid: internal error: ";
  (void)!write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!write(STDERR_FILENO, what, std::strlen(what));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(pipegrid::kExitInternalError);
}

#if !defined(PIPEGRID_ADDRESS_SANITIZER)  // where ASan's own report is not the one to read (main)
void on_fatal_signal(int signal) {
  say_and_exit(signal == SIGSEGV ? "segmentation fault" : signal == SIGBUS ? "bus error" : "arithmetic fault");
}
#endif

}  // namespace

int main(int argc, char** argv) {
  // Before anything is printed or written: stdout through a buffer that keeps a failed write's
  // reason (exit 74), and SIGINT and SIGTERM ending every command with 130 and 143 after its last
  // words (a run's status.json, its temporaries: common/interruption.h). SIGPIPE keeps its default
  // action: `pipegrid … | head -1` ends quietly, as `seq … | head -1` does.
  pipegrid::watch_stdout();
  pipegrid::interruption::install();
  // An exception thrown where none may escape (a destructor, a noexcept function, another thread).
  // SimGrid replaces this handler with its own while an engine lives; its abort is caught there
  // (sim/exec/simgrid_errors.h).
  std::set_terminate([] { say_and_exit("an exception escaped where none may (std::terminate)"); });
#if !defined(PIPEGRID_ADDRESS_SANITIZER)
  // Under AddressSanitizer its own report is the one worth reading.
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE}) std::signal(signal, on_fatal_signal);
  // SimGrid mallocs each actor's 8 MiB stack. glibc raises its mmap threshold to the size of the
  // first large block freed, so once an actor ends, later stacks come from the heap, whose reused
  // pages are resident: a run whose GPUs end at different times grew its peak RSS many times over
  // (docs/performance.md). A fixed threshold keeps every stack a lazy mapping of its own.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // Fixing it also fixes glibc's trim threshold at 128 KiB: every first route from a GPU (SimGrid's
  // Dijkstra allocates and frees arrays as large as the platform) then gives the top of the heap
  // back to the kernel — brk, munmap, a TLB flush — and the next allocation takes it again, a share
  // of a large run's CPU that perf shows (docs/performance.md). 64 MiB keeps it.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  return pipegrid::cli::run_command_line(std::vector<std::string>(argv + 1, argv + argc));
}
