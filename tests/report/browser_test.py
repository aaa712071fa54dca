#!/usr/bin/python3
"""The HTML report in a real browser: runs a healthy and a deadlocking `pipegrid simulate --report`, and
a pitfall-shaped directory (broken/ and fixed/ with lesson.json) through `pipegrid report`, loads each
page in headless Chromium, and checks that its screenshot is not blank (not one colour, enough pixels
off the background, the Gantt chart's colours drawn) and that the page's text holds the key figures,
taken from the run's own files and text report.

    browser_test.py PIPEGRID SOURCE_DIR [--keep DIR]

Exit 77 (CTest's SKIP_RETURN_CODE) with the reason only when Chromium cannot start: not installed, or
it fails to render a trivial page. Every Chromium call has a private profile and a time limit.
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile

import matplotlib.image
import numpy

SKIP = 77
CHROMIUM_SECONDS = 90
WINDOW = (1200, 1800)
F_BLUE = (0x3B, 0x75, 0xAF)      # experiments/plot/gantt.py's F
B_GREEN = (0x2E, 0x9E, 0x4F)     # and B
DEADLOCK_RED = (0xC6, 0x28, 0x28)
PARETO_ORANGE = (0xFF, 0x7F, 0x0E)  # matplotlib's tab:orange, experiments/plot/pareto.py's front


def format_number(x):
    """common/number_format.cc: an integer without decimals, else up to 10 significant digits."""
    return f"{x:.0f}" if abs(x) < 1e10 and x == round(x) else f"{x:.10g}"


class Chromium:
    def __init__(self, work):
        self.binary = shutil.which("chromium") or shutil.which("chromium-browser")
        self.work = work
        self.calls = 0

    def run(self, *args):
        """(exit code, stdout) of one headless Chromium; None when it outlives its time limit."""
        self.calls += 1
        profile = self.work / f"profile-{self.calls}"
        command = [self.binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}", *args]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        try:
            out, _ = process.communicate(timeout=CHROMIUM_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return None
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        return process.returncode, out.decode("utf-8", "replace")

    def screenshot(self, page, png):
        result = self.run(f"--screenshot={png}", f"--window-size={WINDOW[0]},{WINDOW[1]}", page.as_uri())
        return result is not None and result[0] == 0 and png.exists()

    def dom(self, page):
        result = self.run("--dump-dom", page.as_uri())
        return result[1] if result and result[0] == 0 else None


def start_or_skip(chromium):
    if not chromium.binary:
        print("SKIP: chromium is not installed (scripts/install-deps.sh installs Debian's chromium)")
        sys.exit(SKIP)
    probe = chromium.work / "probe.html"
    probe.write_text("<!DOCTYPE html><html><body><h1>probe</h1></body></html>\n")
    if not chromium.screenshot(probe, chromium.work / "probe.png"):
        print(f"SKIP: {chromium.binary} cannot start: it renders no screenshot of a trivial page "
              f"within {CHROMIUM_SECONDS} s")
        sys.exit(SKIP)


def pixels_near(image, colour, tolerance=0.04):
    target = [c / 255 for c in colour]
    close = abs(image[:, :, 0] - target[0]) < tolerance
    for channel in (1, 2):
        close &= abs(image[:, :, channel] - target[channel]) < tolerance
    return int(close.sum())


class Checks:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            self.failures.append(what)

    def screenshot(self, chromium, page, png, colours):
        if not chromium.screenshot(page, png):
            self.expect(False, f"{page.parent.name}: Chromium renders a screenshot")
            return
        image = matplotlib.image.imread(str(png))[:, :, :3]
        flat = (image.reshape(-1, 3) * 255).round().astype(int)
        codes = flat[:, 0] * 65536 + flat[:, 1] * 256 + flat[:, 2]
        values, counts = numpy.unique(codes, return_counts=True)
        self.expect(len(values) > 1, f"{page.parent.name}: the screenshot is not one colour")
        off_background = 1 - counts.max() / len(codes)
        self.expect(off_background > 0.2,
                    f"{page.parent.name}: {off_background:.0%} of the pixels are off the background (> 20 %)")
        for name, colour in colours:
            n = pixels_near(image, colour)
            self.expect(n > 400, f"{page.parent.name}: {n} pixels of the chart's {name} (> 400)")

    def text(self, dom, page, needles):
        if dom is None:
            self.expect(False, f"{page.parent.name}: Chromium dumps the DOM")
            return
        for needle in needles:
            self.expect(needle in dom, f"{page.parent.name}: the page says {needle!r}")


def pipegrid(binary, *args, expect):
    run = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120)
    if run.returncode != expect:
        sys.exit(f"browser_test: pipegrid {' '.join(args)} exited {run.returncode}, not {expect}: {run.stderr}")
    return run


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pipegrid")
    p.add_argument("source_dir", type=pathlib.Path)
    p.add_argument("--keep", type=pathlib.Path, metavar="DIR", help="leave the runs and screenshots here")
    args = p.parse_args(argv)
    work = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="pipegrid-browser-"))
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    chromium = Chromium(work)
    start_or_skip(chromium)

    star = str(args.source_dir / "tests/data/platforms/star-4gpu.xml")
    healthy = ["simulate", "--platform", star, "--schedule", "1f1b", "--pp", "4", "--microbatches", "8"]
    # Both ranks send first and a rendezvous send waits for its receive: a deadlock (exit 3).
    deadlocking = ["simulate", "--platform", star, "--schedule", "1f1b", "--pp", "2", "--microbatches", "4",
                   "--p2p", "rendezvous", "--comm-plan", "blocking-calls"]
    pipegrid(args.pipegrid, *healthy, "--out", str(work / "healthy"), "--report", expect=0)
    dead = pipegrid(args.pipegrid, *deadlocking, "--out", str(work / "deadlock"), "--report", expect=3)
    pipegrid(args.pipegrid, *deadlocking, "--out", str(work / "pitfall/broken"), expect=3)
    pipegrid(args.pipegrid, *deadlocking, "--p2p", "async", "--out", str(work / "pitfall/fixed"), expect=0)
    lesson = {"name": "rendezvous-1f1b", "title": "1F1B with rendezvous sends", "what_you_see": "exit 3",
              "why": "Both ranks send first; a rendezvous send waits for the receive posted after it.",
              "fix": "--p2p async", "source": "PyTorch's batch_isend_irecv"}
    (work / "pitfall/lesson.json").write_text(json.dumps(lesson))
    pipegrid(args.pipegrid, "report", str(work / "pitfall"), expect=0)

    checks = Checks()
    summary = json.loads((work / "healthy/summary.json").read_text())
    page = work / "healthy/report.html"
    checks.screenshot(chromium, page, work / "healthy.png", [("F blue", F_BLUE), ("B green", B_GREEN)])
    checks.text(chromium.dom(page), page,
                [format_number(summary["makespan"]) + " s", f"bubble fraction {summary['bubble_fraction']:.4f}",
                 summary["pace"]["explanation"], "Busiest links"])

    # The chain as the executor's text report prints it: "deadlock at 4.002 s: <chain>".
    first = dead.stderr.splitlines()[0]
    chain = first.split(": ", 1)[1]
    deadlock = json.loads((work / "deadlock/deadlock.json").read_text())
    page = work / "deadlock/report.html"
    checks.screenshot(chromium, page, work / "deadlock.png", [("F blue", F_BLUE), ("deadlock red", DEADLOCK_RED)])
    checks.text(chromium.dom(page), page,
                [f"Deadlock at t = {format_number(deadlock['time'])} s", chain, "fix:"])

    fixed = json.loads((work / "pitfall/fixed/summary.json").read_text())
    page = work / "pitfall/report.html"
    checks.screenshot(chromium, page, work / "pitfall.png", [("F blue", F_BLUE), ("deadlock red", DEADLOCK_RED)])
    checks.text(chromium.dom(page), page,
                [lesson["title"], lesson["why"], f"Broken: deadlock at t = {format_number(deadlock['time'])} s",
                 f"Fixed: makespan {format_number(fixed['makespan'])} s", chain])

    # A plan's page: what each stage kept, the best layouts, the picture of step time against memory.
    pipegrid(args.pipegrid, "plan", "--model", "gpt-1.7b", "--preset", "dgx-a100", "--nodes", "1", "--global-batch",
             "16", "--top", "2", "--jobs", "2", "--space", "schedule=1f1b,interleaved", "--space", "recompute=none",
             "--out", str(work / "plan"), "--report", expect=0)
    plan = json.loads((work / "plan/plan.json").read_text())
    page = work / "plan/report.html"
    checks.screenshot(chromium, page, work / "plan.png", [("Pareto front orange", PARETO_ORANGE)])
    checks.text(chromium.dom(page), page,
                ["What each stage kept", str(plan["combinations"]), "Why the runner-up lost", plan["best"][0]["text"],
                 f"{plan['best'][0]['simulated_step_s']:.4f}"])

    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    if checks.failures:
        sys.exit(f"browser_test: {len(checks.failures)} check(s) failed")
    print(f"browser_test: every check passed ({chromium.calls} Chromium runs)")


if __name__ == "__main__":
    main(sys.argv[1:])
