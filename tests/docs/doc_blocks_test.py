#!/usr/bin/python3
"""The doc-test runner on pages made to fail (tests/docs/fixtures/): each failure names its page and
line, and a page whose blocks are right passes with the counts.

    doc_blocks_test.py PIPEGRID
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PIPEGRID = os.path.abspath(sys.argv[1])
REPO = os.path.dirname(os.path.dirname(HERE))


def run(page, *flags):
    done = subprocess.run([sys.executable, os.path.join(HERE, "run_doc_blocks.py"), "--pipegrid", PIPEGRID,
                           "--repo", REPO, *flags, os.path.join(HERE, "fixtures", page)],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


class Runner(unittest.TestCase):
    def test_a_drifted_output_fails_naming_the_page_and_the_line_shown(self):
        code, out, err = run("drifted.md")
        self.assertEqual(code, 1)
        self.assertIn("2 blocks run (2 commands, 2 outputs compared)", out)
        # Line 12 of the fixture shows makespan 10; the command prints 9.
        self.assertIn("tests/docs/fixtures/drifted.md:12: `build/pipegrid schedule --schedule 1f1b", err)
        self.assertIn("printed:  1f1b: pp 2, microbatches 2, chunks 1; makespan 9, bubble fraction 0.3333", err)
        self.assertEqual(err.count("drifted.md:"), 1)

    def test_a_command_outside_a_shell_block_fails_the_page(self):
        code, out, err = run("unmarked.md")
        self.assertEqual(code, 1)
        self.assertIn("tests/docs/fixtures/unmarked.md:3: a command in an indented block", err)

    def test_a_failing_command_fails_with_its_exit_code_and_stderr(self):
        code, out, err = run("failing.md")
        self.assertEqual(code, 1)
        self.assertIn("tests/docs/fixtures/failing.md:5: exit 2, not 0: build/pipegrid schedule", err)
        self.assertIn("pipegrid: error: ", err)

    def test_every_marker_holds_and_long_blocks_wait_for_docs_check(self):
        code, out, err = run("marked.md")
        self.assertEqual(code, 0, err)
        self.assertIn("2 blocks run (2 commands, 2 outputs compared), 1 skipped with their reason, 1 left to "
                      "make docs-check", out)
        code, out, err = run("marked.md", "--long")
        self.assertEqual(code, 0, err)
        self.assertIn("3 blocks run (3 commands, 3 outputs compared), 1 skipped", out)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
