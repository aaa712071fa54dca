#!/usr/bin/env python3
"""Every layout of NVIDIA's DGX Cloud recipes (experiments/h100-recipes) is expressible: pipegrid
accepts it on a generated DGX H100 platform of its size and lays it out as the row says.

usage: h100_recipes_test.py PIPEGRID RECIPES_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

PIPEGRID, RECIPES = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("recipes", os.path.join(RECIPES, "recipes.py"))
recipes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recipes)
ROWS = recipes.layouts()
SIMULATED_GPUS = 16  # the layouts this small also run through SimGrid (simulate)


def sizes(row):
    return {k: int(row[k] or 1) for k in ("tp", "pp", "dp", "cp", "ep")}


class NvidiaRecipes(unittest.TestCase):
    def test_the_table_has_its_49_layouts_of_98_rows(self):
        # 98 measured rows, one BF16 and one FP8 per layout (the CSV's README).
        self.assertEqual(len(ROWS), 49)
        self.assertTrue(all(r["bf16_s"] and r["fp8_s"] for r in ROWS))

    def test_every_layout_is_priced_on_its_platform(self):
        for row in ROWS:
            with self.subTest(model=row["params_b"], gpus=row["gpus"], layout=sizes(row)):
                done = subprocess.run([PIPEGRID, "schedule", *recipes.arguments(row), "--format", "json"],
                                      capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                result = json.loads(done.stdout)
                s = sizes(row)
                self.assertEqual((result["model"]["tp"], result["pp"], result["model"]["dp"]),
                                 (s["tp"], s["pp"], s["dp"]))
                self.assertGreater(result["step_time"], 0)

    def test_the_smallest_layouts_run_on_simgrid(self):
        small = [r for r in ROWS if int(r["gpus"]) <= SIMULATED_GPUS]
        self.assertGreaterEqual(len(small), 4)
        for row in small:
            with self.subTest(model=row["params_b"], gpus=row["gpus"]), tempfile.TemporaryDirectory() as out:
                done = subprocess.run([PIPEGRID, "simulate", *recipes.arguments(row), "--trace", "off",
                                       "--out", out], capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                with open(os.path.join(out, "summary.json")) as f:
                    layout = json.load(f)["inputs"]["layout"]
                self.assertEqual({k: layout[k]["size"] for k in ("tp", "pp", "dp", "cp")},
                                 {k: v for k, v in sizes(row).items() if k != "ep"})
                self.assertEqual(layout["tp"]["size"] * layout["pp"]["size"] * layout["dp"]["size"] *
                                 layout["cp"]["size"], int(row["gpus"]))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
