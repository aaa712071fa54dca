// The pictures drawn by this checkout's experiments/plot scripts with the system's Python (Debian's
// matplotlib and pandas): --plot FILE.png of `schedule` and `check`, the Gantt chart of a run's
// trace.csv (gantt.py draws a deadlock when deadlock.json lies beside the trace); a plan's pareto.png.
#pragma once

#include <string>

namespace pipegrid::cli {

/// Throws InputError naming `flag_value` (--plot FILE.png) when /usr/bin/python3, gantt.py or the
/// modules it imports (matplotlib, pandas) are missing, so that nothing runs before the plot is
/// known to be drawable.
void check_gantt_plotter(const std::string& flag_value);

/// The folder of --plot FILE.png, made as --out makes its folder: a chart is never lost for a missing
/// folder. InputError when it cannot be made.
void make_plot_folder(const std::string& png);

/// Runs `/usr/bin/python3 gantt.py TRACE --out PNG [--wait-for WAIT_FOR_PNG]` and waits for it; ""
/// when it drew the chart, otherwise why not (its own error is on stderr). The wait-for graph needs
/// a deadlock.json beside the trace.
std::string draw_gantt_chart(const std::string& trace_csv, const std::string& png,
                             const std::string& wait_for_png = "");

/// Runs `/usr/bin/python3 pareto.py PLAN_CSV --out PNG` (a plan's step time against memory); "" when
/// it drew it, otherwise why not.
std::string draw_pareto(const std::string& plan_csv, const std::string& png);

}  // namespace pipegrid::cli
