// The exit codes every pipegrid command keeps (DESIGN.md, "Errors").
#pragma once

namespace pipegrid::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 2;  // bad user input: one line naming the input and the rule
inline constexpr int kExitDeadlock = 3;    // the schedule deadlocks: a report of the cycle of waits

}  // namespace pipegrid::cli
