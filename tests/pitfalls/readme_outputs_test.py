#!/usr/bin/python3
"""Every lesson's README shows, under "What you see", the commands a student runs and what they print:
each shown line must be a line the command prints today (a README may trim lines, never change them),
and a deadlock's `fix:` line, the report's last, must be shown.

    readme_outputs_test.py PIPEGRID CATALOGUE
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import unittest

PIPEGRID, CATALOGUE = os.path.abspath(sys.argv[1]), sys.argv[2]


def shown_runs(readme):
    """(args, shown lines) for each `$ pipegrid …` line of the fenced blocks under "What you see"."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## What you see"):text.index("## Why")]
    for block in re.findall(r"```\n(.*?)```", section, flags=re.S):
        lines = block.rstrip("\n").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith("$ pipegrid ")]
        for k, i in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            yield shlex.split(lines[i][len("$ pipegrid "):]), lines[i + 1:end]


class WhatYouSee(unittest.TestCase):
    def test_every_shown_line_is_printed_and_every_fix_is_shown(self):
        readmes = sorted(glob.glob(os.path.join(CATALOGUE, "*", "README.md")))
        self.assertGreaterEqual(len(readmes), 12)
        for readme in readmes:
            lesson = os.path.dirname(readme)
            for args, shown in shown_runs(readme):
                with self.subTest(lesson=os.path.basename(lesson), args=" ".join(args)):
                    run = subprocess.run([PIPEGRID] + args, cwd=lesson, capture_output=True, text=True, timeout=60)
                    printed = (run.stdout + run.stderr).rstrip("\n").split("\n")
                    for line in shown:
                        if line.strip() and line.strip() != "…":
                            self.assertIn(line, printed)
                    for line in printed:
                        if line.startswith("fix: "):
                            self.assertIn(line, shown)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
