// What SIGINT and SIGTERM leave behind: a run's last words, prepared while it runs and carried out
// by the signal handler with async-signal-safe calls only (open, write, rename, unlink, kill), after
// which the process ends with the shell's convention, 128 + the signal (130, 143). A run registers
// what must not be left half-done: the status file that says "interrupted", the temporary files it
// is writing, the process group of its children.
#pragma once

#include <csignal>
#include <functional>
#include <string>

namespace pipegrid::interruption {

/// The signals that interrupt a run, and the exit code each ends it with.
inline constexpr int kSignals[] = {SIGINT, SIGTERM};
constexpr int exit_code(int signal) { return 128 + signal; }
const char* signal_name(int signal);  // "SIGINT", "SIGTERM"

/// Installs the handlers. Until then, the signals keep their default action. Idempotent, and to be
/// called again after a library has put its own in their place: SimGrid's engine replaces SIGINT's
/// with one that prints "CTRL-C pressed" and exit(1)s (sim/simgrid/simgrid_engine.cc puts it back).
void install();

/// Last words are slots filled and emptied by the run while it goes on; the handler carries them out
/// kind by kind — the children's groups signalled, the temporaries removed, the files written, the
/// lines said — whatever order they were filled in. Each call blocks the two signals while it edits
/// the slots, so the handler never sees one half-written.
/// At most kSlots of each kind are live at once; one more is an internal error (std::logic_error).
inline constexpr int kSlots = 64;

/// On an interruption, write `render(signal)` to `path` (through `path`.interrupted, renamed into
/// place). Rendered now, for each of kSignals, since nothing may be allocated in the handler.
/// Returns a handle for forget().
int write_on_interrupt(const std::string& path, const std::function<std::string(int signal)>& render);
/// On an interruption, remove `path` (a temporary file being written).
int unlink_on_interrupt(const std::string& path);
/// On an interruption, send the same signal to process group `pgid` (children of a sweep), then go on.
int kill_group_on_interrupt(int pgid);
/// On an interruption, write `render(signal)` to stderr — one line, its newline included — once every
/// other slot has been carried out: what the user is told (e.g. "pipegrid: interrupted by SIGINT;
/// out/status.json says so").
int say_on_interrupt(const std::function<std::string(int signal)>& render);
/// Empties a slot (the file was renamed into place, the children ended). A handle of -1 is ignored.
void forget(int handle);
/// In a child just forked: empties every slot, for the parent's last words are not the child's (a
/// forked sweep run must not signal its siblings or write the sweep's files). Async-signal-safe (it
/// frees nothing), so it may run between fork and exec; call it with the signals blocked.
void forget_all_after_fork();

}  // namespace pipegrid::interruption
