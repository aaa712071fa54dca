"""results_data against data/results.csv, read by eye: four schedules × micro-batches 4, 8, 16, 32 on the
two-node platform (makespan and bubble from `pipegrid schedule --pp 4` with F = 1, B = 2; GPipe at 32
timed out, DualPipe at 4 is invalid), plus one 1F1B run on the one-node platform that deadlocked."""
import math
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "experiments" / "plot"))
import results_data  # noqa: E402

RESULTS = HERE / "data" / "results.csv"
TWO_NODES = "platform.file=platforms/dgx-a100-2node.xml"


class Reading(unittest.TestCase):
    def setUp(self):
        self.results = results_data.read_results(RESULTS)

    def test_axes_are_the_columns_between_id_and_status(self):
        self.assertEqual(results_data.axes_of(self.results),
                         ["sim.schedule", "parallel.microbatches", "platform.file"])

    def test_metrics_are_numbers_and_empty_unless_ok(self):
        self.assertEqual(self.results.makespan.iloc[7], 105.0)
        self.assertTrue(math.isnan(self.results.makespan.iloc[3]))
        self.assertEqual(self.results.message.iloc[16],
                         "gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1B0")

    def test_a_file_without_the_sweep_columns_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
            f.write("id,makespan\n0,1\n")
            f.flush()
            with self.assertRaisesRegex(ValueError, "expected the columns id, the sweep's axes, then status"):
                results_data.read_results(f.name)

    def test_numeric_values_sort_as_numbers_others_keep_the_files_order(self):
        self.assertEqual(results_data.ordered_values(["16", "4", "32", "8"]), ["4", "8", "16", "32"])
        self.assertEqual(results_data.ordered_values(self.results["sim.schedule"]),
                         ["gpipe", "1f1b", "zb-h1", "dualpipe"])


class Filtering(unittest.TestCase):
    def setUp(self):
        self.results = results_data.read_results(RESULTS)

    def test_where_keeps_matching_runs(self):
        kept = results_data.where(self.results, [TWO_NODES, "sim.schedule=1f1b"])
        self.assertEqual(list(kept.id), ["4", "5", "6", "7"])

    def test_where_names_the_values_an_axis_takes(self):
        with self.assertRaisesRegex(ValueError, r"parallel.microbatches takes 4, 8, 16, 32"):
            results_data.where(self.results, ["parallel.microbatches=7"])
        with self.assertRaisesRegex(ValueError, "no axis 'schedule'; the axes are sim.schedule, "):
            results_data.where(self.results, ["schedule=1f1b"])

    def test_another_varying_axis_must_be_fixed(self):
        with self.assertRaisesRegex(ValueError, "platform.file varies too .*--where platform.file=VALUE"):
            results_data.curves(self.results, "parallel.microbatches", "sim.schedule", "makespan")


class CurvesOf(unittest.TestCase):
    def setUp(self):
        results = results_data.read_results(RESULTS)
        self.curves = results_data.curves(results, "parallel.microbatches", "sim.schedule", "bubble_fraction",
                                          [TWO_NODES])

    def test_one_line_per_schedule_over_ok_runs(self):
        lines = {line.group: (line.x, line.y) for line in self.curves.lines}
        self.assertEqual(list(lines), ["gpipe", "1f1b", "zb-h1", "dualpipe"])
        self.assertEqual(lines["gpipe"], ([4.0, 8.0, 16.0], [0.4286, 0.2727, 0.1579]))  # 32 timed out
        self.assertEqual(lines["dualpipe"], ([8.0, 16.0, 32.0], [0.0769, 0.04, 0.0204]))  # 4 is invalid
        self.assertEqual(self.curves.x_values, [4.0, 8.0, 16.0, 32.0])
        self.assertEqual(self.curves.left_out, [("gpipe", "32", "timeout"), ("dualpipe", "4", "invalid")])

    def test_log_x_only_beyond_eight_times(self):
        self.assertFalse(self.curves.log_x())  # 32 / 4 is 8, not more
        self.assertTrue(results_data.Curves([2.0, 32.0], True, [], []).log_x())
        self.assertFalse(results_data.Curves(["a.xml", "b.xml"], False, [], []).log_x())


class GridOf(unittest.TestCase):
    def setUp(self):
        self.results = results_data.read_results(RESULTS)

    def test_pivot_over_two_axes_with_statuses(self):
        grid = results_data.grid(self.results, "parallel.microbatches", "sim.schedule", "makespan", [TWO_NODES])
        self.assertEqual(grid.x_values, ["4", "8", "16", "32"])
        self.assertEqual(grid.y_values, ["gpipe", "1f1b", "zb-h1", "dualpipe"])
        self.assertEqual(grid.values[1], [21.0, 33.0, 57.0, 105.0])
        self.assertEqual(grid.values[2], [15.0, 27.0, 51.0, 99.0])
        self.assertTrue(math.isnan(grid.values[0][3]) and math.isnan(grid.values[3][0]))
        self.assertEqual(grid.status[0], ["ok", "ok", "ok", "timeout"])
        self.assertEqual(grid.status[3], ["invalid", "ok", "ok", "ok"])

    def test_a_missing_run_has_no_status(self):
        grid = results_data.grid(self.results, "parallel.microbatches", "platform.file", "mfu",
                                 ["sim.schedule=1f1b"])
        self.assertEqual(grid.y_values, ["platforms/dgx-a100-2node.xml", "platforms/dgx-a100-1node.xml"])
        self.assertEqual(grid.status[1], [None, "deadlock", None, None])
        self.assertEqual(grid.values[0], [0.2747, 0.3497, 0.4048, 0.4395])

    def test_unknown_metric(self):
        with self.assertRaisesRegex(ValueError, "no metric 'step'; the metrics are makespan, "):
            results_data.grid(self.results, "parallel.microbatches", "sim.schedule", "step", [TWO_NODES])


if __name__ == "__main__":
    unittest.main()
