"""The shell blocks of a Markdown page and what they are said to print, in the spirit of SimGrid's tesh.

A page's shell blocks are its fenced blocks whose language is `console`, `sh`, `bash` or `shell`:
- `console`: lines starting `$ ` are commands (a line ending with `\\` goes on to the next); the lines
  after a command, up to the next, are what its stdout must be, whole (a command shown with no lines
  after it is run, its output not compared). A line `...` stands for any lines (none included);
  `[...]` within a line for any text; spaces at a line's end do not count.
- `sh`, `bash`, `shell`: one script, run whole; its output is not compared.
An HTML comment on the line before the fence says how to run the block, `;`-separated:
- `doc-test: skip REASON` (the reason is required, and is the rest of the marker), `doc-test: long` (run by `make docs-check`),
- `doc-test: exit N` (each command must exit N), `doc-test: files A B …` (written and not empty after),
- `doc-test: tolerance R` (numbers in the output may differ by R relatively; the rest of a line exactly).
A link to a file (`[text](path)`, not a URL or an anchor) must name a file or folder that exists, from
the page's folder.
A command outside a shell block (a `$ ` line in a fence of no language, or an indented command line)
is an error: a command a page shows is either run or marked skipped with its reason.
"""
import re
from dataclasses import dataclass, field

SHELL = {"console", "sh", "bash", "shell"}
MARKER = re.compile(r"^\s*<!--\s*doc-test:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$")
COMMAND_LIKE = re.compile(r"^(\$ |pipegrid |build/pipegrid |make )")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class PageError(Exception):
    """A page that cannot be tested as written: its path and line say where."""


@dataclass
class Command:
    line: int  # the page's line of its `$ `
    text: str
    expected: list = field(default_factory=list)  # (page line, shown line)


@dataclass
class Block:
    page: str
    line: int  # the page's line of the opening fence
    language: str
    commands: list
    skip: str = ""
    long: bool = False
    exit: int = 0
    files: list = field(default_factory=list)
    tolerance: float = 0.0


def parse_marker(text, page, line):
    options = {}
    parts = [p.strip() for p in text.split(";")]
    for k, part in enumerate(parts):
        word, _, rest = part.partition(" ")
        rest = rest.strip()
        if word == "skip":  # the reason is the rest of the marker, `;` and all
            rest = "; ".join([rest] + parts[k + 1:]).strip("; ")
            if not rest:
                raise PageError(f"{page}:{line}: `doc-test: skip` needs its reason")
            options["skip"] = rest
            break
        elif word == "long" and not rest:
            options["long"] = True
        elif word == "exit" and rest.isdigit():
            options["exit"] = int(rest)
        elif word == "files" and rest:
            options["files"] = rest.split()
        elif word == "tolerance":
            try:
                options["tolerance"] = float(rest)
            except ValueError:
                raise PageError(f"{page}:{line}: `doc-test: tolerance` needs a number, not '{rest}'") from None
        else:
            raise PageError(f"{page}:{line}: unknown doc-test marker '{part}' (skip REASON, long, exit N, files …, "
                            "tolerance R)")
    return options


def console_commands(lines, first_line):
    """The commands of a console block's body, each with the lines it is shown to print."""
    commands, i = [], 0
    while i < len(lines):
        text = lines[i]
        if not text.startswith("$ "):
            if not commands:
                raise PageError(f"{{page}}:{first_line + i}: a console block starts with a `$ ` command")
            commands[-1].expected.append((first_line + i, text))
            i += 1
            continue
        command = Command(first_line + i, text[2:])
        while command.text.endswith("\\") and i + 1 < len(lines):
            i += 1
            command.text = command.text[:-1] + " " + lines[i].lstrip()
        commands.append(command)
        i += 1
    return commands


def blocks(page, text):
    """Every shell block of a page, in order; PageError for a command outside one."""
    found, lines, i, marker = [], text.split("\n"), 0, None
    while i < len(lines):
        number = i + 1
        m = MARKER.match(lines[i])
        if m:
            marker = (parse_marker(m.group(1), page, number), number)
            i += 1
            continue
        fence = FENCE.match(lines[i])
        if not fence:
            if marker:
                raise PageError(f"{page}:{marker[1]}: a doc-test marker must be the line before a fence")
            if re.match(r"^ {4,}", lines[i]) and COMMAND_LIKE.match(lines[i].lstrip()):
                raise PageError(f"{page}:{number}: a command in an indented block: put it in a ```console or ```sh "
                                "block (run by the tests) or mark it skipped with its reason")
            i += 1
            continue
        indent, ticks, language = fence.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(ticks[0] * len(ticks)):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        if language in SHELL:
            if language == "console":
                try:
                    commands = console_commands(body, number + 1)
                except PageError as e:
                    raise PageError(str(e).replace("{page}", page)) from None
            else:
                commands = [Command(number + 1, "\n".join(body))]
            options = marker[0] if marker else {}
            found.append(Block(page, number, language, commands, **options))
        else:
            if marker:
                raise PageError(f"{page}:{marker[1]}: a doc-test marker before a block that is not shell "
                                f"({language or 'no language'})")
            for k, line in enumerate(body):
                if line.startswith("$ "):
                    raise PageError(f"{page}:{number + 1 + k}: a `$ ` command in a fence of language "
                                    f"'{language}': make it ```console (run by the tests) or mark it skipped")
        marker = None
        i = end + 1
    return found


def line_matches(shown, printed, tolerance):
    shown, printed = shown.rstrip(), printed.rstrip()  # editors strip what a page's lines end with
    pattern = "^" + ".*".join(re.escape(part) for part in shown.split("[...]")) + "$"
    if re.match(pattern, printed, flags=re.S):
        return True
    if tolerance <= 0 or "[...]" in shown:
        return False
    a, b = NUMBER.split(shown), NUMBER.split(printed)
    x, y = NUMBER.findall(shown), NUMBER.findall(printed)
    if a != b or len(x) != len(y):
        return False
    return all(abs(float(p) - float(q)) <= tolerance * max(abs(float(p)), abs(float(q))) for p, q in zip(x, y))


def first_mismatch(expected, printed, tolerance=0.0):
    """None when `printed` (lines) is what `expected` ((page line, shown)) shows; else the page line of
    the first shown line that no printed line answers, or of the last when the output goes on."""

    if not expected:
        return None

    def match(e, p):
        if e == len(expected):
            return None if p == len(printed) else (expected[-1][0] if expected else None, p)
        line, shown = expected[e]
        if shown.strip() == "...":
            for q in range(p, len(printed) + 1):
                if match(e + 1, q) is None:
                    return None
            return (line, p)
        if p < len(printed) and line_matches(shown, printed[p], tolerance):
            return match(e + 1, p + 1)
        return (line, p)

    return match(0, 0)


LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken_links(page, text, folder):
    """`PAGE:LINE: …` for each relative link of the page whose file is not there (anchors not checked)."""
    import os
    found, fence = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fence = not fence
        if fence:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0]
            if path and not os.path.exists(os.path.join(folder, path)):
                found.append(f"{page}:{number}: the link {target} names no file")
    return found
