"""The house's layers, read from the sources: every #include "…" of the project's files against the
rules of docs/design.md's layer picture. A rule broken fails here, naming the file, the line and the
include. Usage: include_rules_test.py REPO_ROOT (ctest passes it)."""
import pathlib
import re
import sys
import unittest

ROOT = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Each library folder and the folders whose headers it may not include: nothing from a layer above it.
LAYERS_ABOVE = {
    "common": ["schedules", "sim"],
    "schedules": ["sim"],
    "sim/platform": ["sim/network", "sim/exec", "sim/output", "sim/run", "sim/sweep", "sim/report", "sim/cli"],
    "sim/model": ["sim/network", "sim/exec", "sim/output", "sim/run", "sim/sweep", "sim/report", "sim/cli"],
    "sim/network": ["sim/exec", "sim/output", "sim/run", "sim/sweep", "sim/report", "sim/cli"],
    "sim/exec": ["sim/output", "sim/run", "sim/sweep", "sim/report", "sim/cli", "sim/input"],
    "sim/output": ["sim/run", "sim/sweep", "sim/report", "sim/cli", "sim/input"],
    "sim/run": ["sim/sweep", "sim/report", "sim/cli"],
    "sim/sweep": ["sim/report", "sim/cli"],
    "sim/report": ["sim/run", "sim/sweep", "sim/cli", "sim/exec", "sim/network"],
}
SOURCE_SUFFIXES = {".h", ".cc", ".in"}


def includes(folder):
    """(file, line number, included path) of every project include under `folder`."""
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if match:
                yield path.relative_to(ROOT).as_posix(), number, match.group(1)


def target_links(cmake_file, target):
    """The libraries target_link_libraries gives `target` in `cmake_file`."""
    text = (ROOT / cmake_file).read_text(encoding="utf-8")
    found = re.search(r"target_link_libraries\(\s*%s\b([^)]*)\)" % re.escape(target), text)
    return found.group(1).split() if found else []


class IncludeRules(unittest.TestCase):
    def test_the_scanner_reads_the_includes(self):
        # A rule that reads nothing passes vacuously: the network's own includes must be found.
        self.assertIn("sim/network/flow.h", {included for _, _, included in includes("sim/network")})

    def test_no_library_includes_a_layer_above_it(self):
        broken = []
        for folder, above in LAYERS_ABOVE.items():
            for source, number, included in includes(folder):
                if any(included.startswith(layer + "/") for layer in above):
                    broken.append(f"{source}:{number}: includes {included}")
        self.assertEqual(broken, [], "\n".join(broken))

    def test_no_header_includes_the_executor_for_a_type(self):
        # The data contract is sim/exec/simulation_io.h; executor.h only declares simulate().
        broken = [f"{source}:{number}" for folder in ("sim", "bench", "tests") for source, number, included in
                  includes(folder) if source.endswith(".h") and included == "sim/exec/executor.h"]
        self.assertEqual(broken, [], "\n".join(broken))

    def test_the_network_library_links_nothing_above_it(self):
        links = target_links("sim/network/CMakeLists.txt", "pipegrid_network")
        self.assertIn("pipegrid_platform", links)  # it reads the platform's routes
        above = [lib for lib in links if lib in ("pipegrid_exec", "pipegrid_output", "pipegrid_run",
                                                 "pipegrid_sweep", "pipegrid_cli", "pipegrid_report")]
        self.assertEqual(above, [])

    def test_no_two_test_files_share_a_name(self):
        # tests/ mirrors the libraries, one folder each; a name used twice hides which one failed.
        seen = {}
        for path in sorted((ROOT / "tests").rglob("*_test.*")):
            if path.suffix in (".cc", ".py"):
                seen.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
        twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
        self.assertGreater(len(seen), 50)  # the walk found the suite
        self.assertEqual(twice, {})


if __name__ == "__main__":
    unittest.main()
