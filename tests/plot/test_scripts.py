"""Each script run as a user runs it, on the tiny inputs of data/: it writes a PNG of the expected width
and a plausible size, and a bad argument stops it with one line naming the problem."""
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import unittest

import matplotlib
import matplotlib.image
import numpy

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


def read_image(path):
    return matplotlib.image.imread(path)


def red_share(picture):
    """The share of pixels within a small distance of the deadlock's red, #c0392b."""
    red = numpy.array([0xc0, 0x39, 0x2b]) / 255
    return float((numpy.abs(picture[..., :3] - red).max(axis=2) < 0.06).mean())


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

    def test_gantt_of_chunks_and_directions(self):
        for name in ("interleaved-pp2", "dualpipe-pp4"):
            self.assertPicture(run("gantt.py", DATA / name / "trace.csv", "--out", self.out), 14 * DPI, 14 * DPI)

    def test_deadlock_picture_and_wait_for_graph(self):
        graph = pathlib.Path(self.dir.name) / "wait-for.png"
        trace = DATA / "rendezvous-1f1b-pp4" / "trace.csv"
        result = run("gantt.py", trace, "--out", self.out, "--wait-for", graph)
        self.assertEqual(result.returncode, 0, result.stderr)
        deadlock = read_image(self.out)
        self.assertEqual(deadlock.shape[1], 14 * DPI)
        self.assertGreater(deadlock.shape[0], 350)  # a legend, three title lines, four rows of 0.7 inches
        self.assertNotUniform(deadlock)
        # The hatching, ticks and arrows are the deadlock's red; a healthy run's chart has none of it.
        self.assertGreater(red_share(deadlock), 0.01)
        self.assertEqual(run("gantt.py", DATA / "dualpipe-pp4" / "trace.csv", "--out", self.out).returncode, 0)
        self.assertEqual(red_share(read_image(self.out)), 0)
        picture = read_image(graph)
        # wait_for.py: 6.4 × 1.95 / 1.5 inches wide; four ranks on a circle as tall as wide, plus the header.
        self.assertAlmostEqual(picture.shape[1], 6.4 * 1.95 / 1.5 * DPI, delta=1)
        self.assertGreater(picture.shape[0], 6.4 * DPI)
        self.assertNotUniform(picture)
        self.assertGreater(red_share(picture), 0.002)

    def test_wait_for_script_alone(self):
        result = run("wait_for.py", DATA / "unmatched-receive" / "deadlock.json", "--title", "skip", "--out",
                     self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        picture = read_image(self.out)
        self.assertNotUniform(picture)
        self.assertLess(picture.shape[0], picture.shape[1])  # two ranks side by side: a wide picture

    def test_wait_for_over_gpus(self):
        # The crossed collective order: four GPUs in a square (as tall as wide), plus the header.
        result = run("wait_for.py", DATA / "crossed-grad-sync" / "deadlock.json", "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        picture = read_image(self.out)
        self.assertNotUniform(picture)
        self.assertGreater(red_share(picture), 0.002)

    def test_deadlock_option_takes_one_trace(self):
        result = run("gantt.py", DATA / "two_rank_trace.csv", DATA / "dualpipe-pp4" / "trace.csv", "--deadlock",
                     DATA / "unmatched-receive" / "deadlock.json", "--out", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.splitlines()[-1],
                         "gantt.py: error: --deadlock: one deadlock for 2 traces (each trace's own deadlock.json "
                         "is found beside it)")

    def test_deadlock_option_draws_any_trace_as_that_deadlock(self):
        result = run("gantt.py", DATA / "executor-before-issue12" / "trace.csv", "--deadlock",
                     DATA / "executor-before-issue12" / "deadlock.json", "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertGreater(red_share(read_image(self.out)), 0.01)

    def test_wait_for_needs_a_deadlock(self):
        result = run("gantt.py", DATA / "dualpipe-pp4" / "trace.csv", "--out", self.out, "--wait-for",
                     pathlib.Path(self.dir.name) / "g.png")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr.strip(),
                         "gantt.py: error: --wait-for: 0 deadlocked traces; it draws exactly one")

    def assertNotUniform(self, picture):
        colours = picture[..., :3].reshape(-1, 3)
        self.assertGreater(len(numpy.unique(colours, axis=0)), 20)

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
        for script in ("gantt.py", "curves.py", "heatmap.py", "wait_for.py"):
            path = SCRIPTS / script
            self.assertEqual(path.read_text().splitlines()[0], "#!/usr/bin/python3", script)
            self.assertTrue(os.access(path, os.X_OK), f"{script} is not executable")


if __name__ == "__main__":
    unittest.main()
