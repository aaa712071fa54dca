"""Each script run as a user runs it, on the tiny inputs of data/: it writes a PNG of the expected width
and a plausible size, and a bad argument stops it with one line naming the problem."""
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
SCRIPTS = HERE.parents[1] / "experiments" / "plot"
DATA = HERE / "data"
RESULTS = str(DATA / "results.csv")
TWO_NODES = "platform.file=platforms/dgx-a100-2node.xml"
DPI = 130  # the scripts' resolution


def run(script, *args):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


def png_size(path):
    """(width, height) from the PNG's IHDR chunk, which follows the 8-byte signature and a length."""
    head = pathlib.Path(path).read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


class Scripts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.dir.name) / "out.png"

    def tearDown(self):
        self.dir.cleanup()

    def assertPicture(self, result, min_width, max_width):
        self.assertEqual(result.returncode, 0, result.stderr)
        width, height = png_size(self.out)
        self.assertTrue(min_width <= width <= max_width and 150 <= height <= 4000, (width, height))
        self.assertTrue(10_000 < self.out.stat().st_size < 3_000_000, self.out.stat().st_size)
        return width, height

    def test_gantt_of_two_traces(self):
        result = run("gantt.py", DATA / "two_rank_trace.csv", DATA / "zb-h1-star4" / "trace.csv",
                     "--titles", "hand-made 1f1b", "zb-h1", "--width", 8, "--out", self.out)
        self.assertPicture(result, 8 * DPI, 8 * DPI)

    def test_gantt_one_row_per_gpu_is_taller(self):
        trace = DATA / "zb-h1-star4" / "trace.csv"
        _, pipeline = self.assertPicture(run("gantt.py", trace, "--out", self.out), 14 * DPI, 14 * DPI)
        _, gpu = self.assertPicture(run("gantt.py", trace, "--rows", "gpu", "--out", self.out), 14 * DPI, 14 * DPI)
        self.assertGreater(gpu, pipeline)  # 4 rows against 2

    def test_gantt_titles_must_match_traces(self):
        result = run("gantt.py", DATA / "two_rank_trace.csv", "--titles", "a", "b", "--out", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--titles: 2 titles for 1 traces", result.stderr)

    def test_curves(self):
        result = run("curves.py", RESULTS, "--x", "parallel.microbatches", "--group", "sim.schedule",
                     "--where", TWO_NODES, "--out", self.out)
        self.assertPicture(result, 600, 3000)

    def test_curves_names_the_axis_to_fix(self):
        result = run("curves.py", RESULTS, "--x", "parallel.microbatches", "--group", "sim.schedule",
                     "--out", self.out)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr.strip(),
                         "curves.py: error: platform.file varies too (platforms/dgx-a100-2node.xml, "
                         "platforms/dgx-a100-1node.xml): choose one with --where platform.file=VALUE")
        self.assertFalse(self.out.exists())

    def test_heatmap(self):
        result = run("heatmap.py", RESULTS, "--x", "parallel.microbatches", "--y", "sim.schedule",
                     "--where", TWO_NODES, "--out", self.out)
        self.assertPicture(result, 400, 3000)

    def test_heatmap_of_another_metric_with_a_missing_run(self):
        result = run("heatmap.py", RESULTS, "--x", "parallel.microbatches", "--y", "platform.file",
                     "--metric", "mfu", "--where", "sim.schedule=1f1b", "--out", self.out)
        self.assertPicture(result, 400, 3000)

    def test_scripts_run_with_debians_python(self):
        for script in ("gantt.py", "curves.py", "heatmap.py"):
            path = SCRIPTS / script
            self.assertEqual(path.read_text().splitlines()[0], "#!/usr/bin/python3", script)
            self.assertTrue(os.access(path, os.X_OK), f"{script} is not executable")


if __name__ == "__main__":
    unittest.main()
