"""links_data.py (the heat map's data) against hand computations on data/links/, a run of four links
at a 1 ms window: a 1000 B/s NVLink, both ways, a 100 B/s InfiniBand port, and an unused link; and
links_heatmap.py run on it as a user runs it."""
import pathlib
import sys
import tempfile
import unittest

import numpy

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "experiments" / "plot"))
import links_data  # noqa: E402
from test_scripts import png_size, run  # noqa: E402

RUN = HERE / "data" / "links"


class LinksData(unittest.TestCase):
    def heat(self, top):
        return links_data.heat(RUN / "links.csv", RUN / "links_timeline.csv", 0.001, top)

    def test_every_link_grouped_by_class_busiest_first(self):
        heat = self.heat(None)
        # Peak utilisation: nic0-ib UP 1.0 (class ib first), gpu0-nvlink UP 0.75, DOWN 0.25, spare 0.
        self.assertEqual(heat.names, ["nic0-ib UP", "gpu0-nvlink UP", "gpu0-nvlink DOWN", "spare"])
        self.assertEqual(heat.classes, ["ib", "nvlink", "nvlink", "spare"])
        self.assertEqual(heat.total_links, 4)
        # Utilisation = bytes / (bandwidth × 1 ms): a window holds 1 byte of the NVLink, 0.1 of the port.
        numpy.testing.assert_allclose(heat.utilization, [[0, 0.1 / 0.1, 0.05 / 0.1, 0],
                                                         [0.75, 0, 0.5, 0],
                                                         [0, 0, 0, 0.25],
                                                         [0, 0, 0, 0]])
        numpy.testing.assert_allclose(heat.starts, [0, 0.001, 0.002, 0.003])

    def test_top_keeps_the_busiest(self):
        heat = self.heat(2)
        self.assertEqual(heat.names, ["nic0-ib UP", "gpu0-nvlink UP"])
        self.assertEqual(heat.utilization.shape, (2, 4))

    def test_window_from_the_summary(self):
        self.assertEqual(links_data.window_of(RUN), 0.001)

    def test_a_missing_column_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            bad = pathlib.Path(folder) / "links.csv"
            bad.write_text("link,class\nx,y\n")
            with self.assertRaisesRegex(ValueError, "no column bandwidth"):
                links_data.heat(bad, RUN / "links_timeline.csv", 0.001)


class LinksHeatmapScript(unittest.TestCase):
    def test_draws_a_picture(self):
        with tempfile.TemporaryDirectory() as folder:
            out = pathlib.Path(folder) / "links.png"
            result = run("links_heatmap.py", RUN, "--out", out, "--all")
            self.assertEqual(result.returncode, 0, result.stderr)
            width, height = png_size(out)
            self.assertTrue(1000 <= width <= 2000 and 150 <= height <= 1000, (width, height))

    def test_without_a_timeline_one_line(self):
        with tempfile.TemporaryDirectory() as folder:
            result = run("links_heatmap.py", folder, "--out", pathlib.Path(folder) / "x.png", "--window", "0.001")
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("--link-timeline", result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
