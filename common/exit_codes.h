// The exit codes every pipegrid command keeps, and a sweep's results read back (docs/design.md,
// "Errors").
#pragma once

namespace pipegrid {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 2;      // bad user input: one line naming the input and the rule
inline constexpr int kExitDeadlock = 3;        // the schedule deadlocks: a report of the cycle of waits
inline constexpr int kExitPlatformFailed = 4;  // a resource of the platform went down during the run
inline constexpr int kExitInternalError = 70;  // a broken invariant inside pipegrid (EX_SOFTWARE)
inline constexpr int kExitIoError = 74;        // a write to stdout or an output file failed (EX_IOERR)
// SIGINT and SIGTERM end a run with 128 + the signal, 130 and 143 (common/interruption.h).

}  // namespace pipegrid
