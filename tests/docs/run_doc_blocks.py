#!/usr/bin/python3
"""Runs every shell block of README.md and docs/ and compares what each command prints with what the page
shows (doc_blocks.py says how a page marks its blocks). A page's blocks run in order, in a folder of
their own that holds the repository's files (linked) and build/pipegrid, also on PATH as `pipegrid`.

    run_doc_blocks.py --pipegrid BUILD/pipegrid [--repo DIR] [--long] [--timeout S] [PAGE …]

By default the blocks marked `long` are left to `make docs-check`, which passes --long: the pages that
have one, every block of them (a long block may read what the page's earlier blocks wrote). Exit 1
naming the page and line of each block that failed; 0 with the counts otherwise.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402

LEFT_OUT = {".git", "build", "out"}  # a user's own build and outputs are not the page's


def pages_of(repo):
    pages = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "**", "*.md"),
                                                                 recursive=True))
    return [p for p in pages if os.path.exists(p)]


def page_folder(repo, pipegrid):
    """A fresh folder that looks like the repository after `make`, so that a page's paths work as written."""
    folder = tempfile.mkdtemp(prefix="pipegrid-docs-")
    for name in os.listdir(repo):
        if name not in LEFT_OUT and not name.startswith("build-"):
            os.symlink(os.path.join(repo, name), os.path.join(folder, name))
    os.makedirs(os.path.join(folder, "build"))
    os.symlink(os.path.abspath(pipegrid), os.path.join(folder, "build", "pipegrid"))
    return folder


def run(script, folder, timeout, errexit):
    env = dict(os.environ, PATH=os.path.join(folder, "build") + os.pathsep + os.environ.get("PATH", ""),
               MPLBACKEND="Agg", COLUMNS="100", LC_ALL="C.UTF-8")
    flags = ["-e", "-o", "pipefail"] if errexit else ["-o", "pipefail"]
    try:
        done = subprocess.run(["bash", *flags, "-c", script], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=timeout)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"still running after {timeout} s"


def tail(text, lines=12):
    shown = text.rstrip("\n").split("\n")
    return "\n".join(("    " + line) for line in shown[-lines:])


def run_block(block, folder, timeout, tally):
    """The failures of one block, each a line naming its page and line."""
    failures = []
    for command in block.commands:
        code, out, err = run(command.text, folder, timeout, block.language != "console")
        tally["commands"] += 1
        if code != block.exit:
            failures.append(f"{block.page}:{command.line}: exit {code}, not {block.exit}: {command.text}\n"
                            f"  stderr:\n{tail(err)}")
            return failures
        if block.language == "console" and command.expected:
            tally["compared"] += 1
            printed = out.rstrip("\n").split("\n") if out.strip() else []
            miss = doc_blocks.first_mismatch(command.expected, printed, block.tolerance)
            if miss:
                line, at = miss
                got = printed[at] if at < len(printed) else "(the output ended)"
                failures.append(f"{block.page}:{line}: `{command.text}` printed something else here\n"
                                f"  the page: {dict(command.expected).get(line, '')}\n  printed:  {got}\n"
                                f"  the whole output:\n{tail(out, 40)}")
                return failures
    for name in block.files:
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            failures.append(f"{block.page}:{block.line}: {name} was not written, or is empty")
    return failures


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pages", nargs="*")
    p.add_argument("--pipegrid", required=True)
    p.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    p.add_argument("--long", action="store_true",
                   help="only the pages with a block marked long, every block of them (make docs-check)")
    p.add_argument("--all", action="store_true", help="every block of every page, long ones included")
    p.add_argument("--timeout", type=float, default=300, help="seconds a command may take")
    a = p.parse_args()
    repo = os.path.abspath(a.repo)
    tally = {"blocks": 0, "commands": 0, "compared": 0, "skipped": 0, "long": 0}
    failures = []
    for page in a.pages or pages_of(repo):
        name = os.path.relpath(os.path.abspath(page), repo)
        try:
            with open(page, encoding="utf-8") as f:
                text = f.read()
            failures += doc_blocks.broken_links(name, text, os.path.dirname(os.path.abspath(page)))
            found = doc_blocks.blocks(name, text)
        except doc_blocks.PageError as e:
            failures.append(str(e))
            continue
        if not found or (a.long and not any(b.long and not b.skip for b in found)):
            continue
        folder = page_folder(repo, a.pipegrid)
        try:
            for block in found:
                if block.skip:
                    tally["skipped"] += 1
                elif block.long and not (a.long or a.all):
                    tally["long"] += 1
                else:
                    tally["blocks"] += 1
                    failures += run_block(block, folder, a.timeout, tally)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"doc-test: {tally['blocks']} blocks run ({tally['commands']} commands, {tally['compared']} outputs "
          f"compared), {tally['skipped']} skipped with their reason, {tally['long']} left to make docs-check")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
