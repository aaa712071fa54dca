// A deadlock as the HTML report shows it: "Deadlock at t = …", the cycle of waits as one line and as a
// table, the fix its shape suggests; and the marks the Gantt chart draws for it.
#pragma once

#include <string>

#include "sim/report/deadlock_view.h"
#include "sim/report/html_gantt.h"
#include "sim/report/trace_chart.h"

namespace pipegrid::report {

/// Which engine found it and the chain of waits in one line (what the text report prints first).
std::string deadlock_chain_html(const DeadlockView& deadlock);

/// The cycle as a table, the other blocked ranks, the fix. `chart` (may be null) supplies the time a
/// wait began when the file does not: the end of the rank's last computation.
std::string deadlock_cycle_html(const DeadlockView& deadlock, const TraceChart* chart);

/// The blocked rows (one per pipeline rank) and the cycle's arrows.
DeadlockMarks deadlock_marks(const DeadlockView& deadlock, const TraceChart& chart);

/// "deadlock at t = 4.002 s" for the pitfall page's comparison.
std::string deadlock_outcome(const DeadlockView& deadlock);

}  // namespace pipegrid::report
