"""A linter's or checker's own layout of its findings, made into positioned lines (`a.js:2:5: …`)
so that they are read like a compiler's diagnostics: ESLint's default listing (a file's path, then
its problems under it), the annotated form of ruff, ty and rustc (a headline such as
``F401 [*] `os` imported but unused``, then ` --> m.py:1:8`) and Biome's (`b.js:1:20
lint/suspicious/noDoubleEquals ━━━` over `× Using == may be unsafe …`). Without this the row
was ESLint's `✖ 4 problems (4 errors, 0 warnings)`, Biome's ruled heading, or for ruff no line."""

from __future__ import annotations

import re

# ` --> m.py:1:8` under a finding's headline (rustc, ruff, ty).
_ARROW = re.compile(r"^\s*--> (\S+?:\d+(?::\d+)?)\s*$")
# A headline that is not a warning, a note or help: the finding itself.
_HEADLINE = re.compile(r"^(?!(?:warning|note|help|info)\b)\S(?:.*\S)?$", re.IGNORECASE)
# ESLint's listing: the file's path on a line of its own, its problems indented under it.
_LISTED_FILE = re.compile(r"^(?:[A-Za-z]:\\|/|\.{1,2}/)?[^\s:]+\.[A-Za-z]{1,6}$")
_LISTED_PROBLEM = re.compile(r"^\s+(\d+):(\d+)\s+error\s+(\S.*)$")
# The rule at the end of a problem's line, two spaces or more after its message; read from the
# line with its trailing spaces taken off, so a long run of spaces is read once.
_RULE = re.compile(r"(?<!\s)\s{2,}(@?[\w/-]+)$")
# Biome's heading, a position and a rule over a rule of `━`, then its message, `×` for an error
# (`!` a warning, `i` a note).
RULED_HEADING = re.compile(r"^(\S+?:\d+:\d+) ([\w/-]+)(?:\s+[A-Z]+)*\s+━{3,}$")
_MARKED = re.compile(r"^\s+([×!i]) (\S.*)$")


def positioned(lines: list[str]) -> list[tuple[str, str]]:
    """The findings laid out over two lines or under their file, in order, each as (where,
    headline): `("m.py:1:8", "F401 [*] `os` imported but unused")`, `("/p/a.js:2:5", "error 'y'
    is not defined (no-undef)")`, `("b.js:1:20", "lint/suspicious/noDoubleEquals: Using == may be
    unsafe …")`. A warning is not a finding."""
    found: list[tuple[str, str]] = []
    listed_file = ""
    for at, line in enumerate(lines):
        arrow = _ARROW.match(line)
        if arrow:
            head = lines[at - 1] if at else ""
            if _HEADLINE.match(head):
                found.append((arrow.group(1), head))
            continue
        ruled = RULED_HEADING.match(line)
        if ruled:
            marked = next((m for below in lines[at + 1 : at + 4] if (m := _MARKED.match(below))), None)
            if marked and marked.group(1) == "×":
                found.append((ruled.group(1), f"{ruled.group(2)}: {marked.group(2)}"))
            continue
        if _LISTED_FILE.match(line):
            listed_file = line
            continue
        problem = _LISTED_PROBLEM.match(line) if listed_file else None
        if problem:
            row, column, message = problem.groups()
            message = message.rstrip()
            rule = _RULE.search(message)
            said = f"error {message[: rule.start()]} ({rule.group(1)})" if rule else f"error {message}"
            found.append((f"{listed_file}:{row}:{column}", said))
        elif not line[:1].isspace():
            listed_file = ""  # a blank line or the totals end a file's problems
    return found
