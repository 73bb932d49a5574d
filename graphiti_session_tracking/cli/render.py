"""How rows reach a person: a table on a terminal that never splits a word (ids and times whole,
text wrapped at spaces, an over-long path broken after a `/`), plain tab-separated lines in a pipe
or a file (`--plain`), the same rows as `query`, `search` and `classify-tools` print them."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, Literal

import click
from rich.cells import cell_len

from .screen import Screen, box_width, table_lines
from .shell import UsageFailure

_TIME_COLUMNS = frozenset(
    {"valid_at", "until", "started_at", "last_modified_at", "committed_at", "first_seen", "last_seen"}
)
_ONLY_WHEN_SET = frozenset({"activity_score"})  # a score only `--activity` computes
# How a table treats a column: an id is shortened in the middle (head…tail) rather than wrapped; a
# time, a count or a label is never wrapped nor shortened; anything else is text, wrapped at spaces.
_ID_COLUMNS = frozenset({"session_id", "sha", "uuid", "group_id"})
_SHORT_COLUMNS = _TIME_COLUMNS | frozenset(
    {
        "sessions",
        "confidence",
        "by",
        "times_seen",
        "agent",
        "primary_activity",
        "activity_score",
        "outcome",
        "pull_request",
        "framework",
        "passed",
        "total",
        "failed",
        "skipped",
        "coverage_pct",
        "relation",
        "label",
        "kind",
        "type",
        "score",
        "line",
        "intent",
        "domain",
        "source",
    }
)
_TEXT_MIN = 16  # a text column narrower than this is hard to read: leave a column out instead
_TEXT_LAST = 8  # unless every column that may be left out is: then this narrow
_SEGMENT_MAX = 24  # words and path segments up to this long are never split in a table
_ID_MIN = 10  # an id is never shortened below this (`spect…5f6a`)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PATH_BREAKS = "/\\"  # an over-long token breaks after a path separator first,
_SOFT_BREAKS = "-_.,;:?&=#+@|)]}"  # then after one of these, and only then anywhere
_BREAKS = _PATH_BREAKS + _SOFT_BREAKS


def _pieces_after(chars: str) -> re.Pattern[str]:
    """Splits a word after each run of `chars`: `a/b//c` -> `a/`, `b//`, `c`."""
    escaped = re.escape(chars)
    return re.compile(f"[^{escaped}]*[{escaped}]+|[^{escaped}]+")


_HEADER_PIECES = _pieces_after("_")
_PATH_PIECES = _pieces_after(_PATH_BREAKS)
_BREAK_PIECES = _pieces_after(_BREAKS)

Layout = Literal["table", "plain", "json"]


def output_options[F: Callable[..., Any]](func: F) -> F:
    """--plain and --table, for every command that prints rows: a pipe or a file gets plain lines
    unless asked, because boxes and wrapped cells are for eyes, not for cut, awk or a spreadsheet."""
    func = click.option(
        "--table",
        "layout",
        flag_value="table",
        help="A boxed table even when stdout is not a terminal (as wide as COLUMNS, else 80).",
    )(func)
    return click.option(
        "--plain",
        "layout",
        flag_value="plain",
        help="Tab-separated lines, a header line first, every row, nothing cut or wrapped "
        "(a newline, tab, backslash in a value: \\n, \\t, \\\\). The default when stdout is not a terminal.",
    )(func)


def layout_of(as_json: bool, layout: str | None) -> Layout:
    """The output the user asked for; without --json, --plain or --table: a table on a terminal,
    plain lines anywhere else."""
    if as_json:
        if layout is not None:
            raise UsageFailure(f"--json and --{layout} are two outputs: choose one")
        return "json"
    if layout == "plain" or (layout is None and not sys.stdout.isatty()):
        return "plain"
    return "table"


def _cell(column: str, value: Any) -> str:
    """A value as a table shows it: short ids, times to the minute, long text cut (--plain and
    --json have it whole)."""
    if value is None:
        return ""
    if column in ("session_id", "sha"):
        return str(value)[:8]
    if column in _TIME_COLUMNS:
        return str(value)[:16].replace("T", " ")  # minutes are enough on screen
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    text = _CONTROL.sub("", text.replace("\t", " "))  # no escape sequence reaches the terminal
    if isinstance(value, list) or len(text) <= 100:
        return text
    cut = text.rfind(" ", 80, 100)  # at a space when there is one near the end: no half word
    return text[: cut if cut > 0 else 99] + "…"


def _plain_cell(value: Any) -> str:
    """A value as one tab-separated field: whole, with backslash, tab, newline and carriage return
    escaped as \\\\ \\t \\n \\r (as `mysql --batch` and PostgreSQL's COPY do), so a row is one line."""
    if value is None:
        return ""
    if type(value) is str:  # most fields: no other test (a pipe reads 10,000 rows of them)
        text = value
    elif isinstance(value, list):
        return ", ".join(_plain_cell(v) for v in value)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = str(int(value)) if value.is_integer() else repr(value)
    elif isinstance(value, dict):
        text = json.dumps(value, default=str)
    else:
        text = str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _fit_prefix(text: str, width: int) -> int:
    """How many characters of `text` fit in `width` terminal cells (at least one)."""
    used = 0
    for index, char in enumerate(text):
        used += cell_len(char)
        if used > width:
            return max(index, 1)
    return len(text)


def _break(token: str, fits: int, chars: str) -> int:
    """The last place within `fits` characters to break `token` after one of `chars`, not inside a
    run of them (`https://`); 0 if none."""
    for cut in range(fits, 1, -1):
        if token[cut - 1] in chars and (cut == len(token) or token[cut] not in _BREAKS):
            return cut
    return 0


def _lead(token: str, room: int) -> int:
    """How much of an over-long token goes on the line it starts: the most that fits `room` and
    ends at a separator or punctuation; 0: none, it starts the next line."""
    if room < 2:
        return 0
    fits = _fit_prefix(token, room)
    cut = _break(token, fits, _PATH_BREAKS) or _break(token, fits, _SOFT_BREAKS)
    return cut if cell_len(token[:cut]) <= room else 0


def _split_token(token: str, width: int) -> list[str]:
    """A token in pieces of at most `width` cells: after a path separator when one fits, else
    after punctuation, only else anywhere (a URL, a path, a hash longer than the column)."""
    pieces: list[str] = []
    while cell_len(token) > width:
        fits = _fit_prefix(token, width)
        cut = _break(token, fits, _PATH_BREAKS) or _break(token, fits, _SOFT_BREAKS) or fits
        pieces.append(token[:cut])
        token = token[cut:]
    pieces.append(token)
    return pieces


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` cells, broken at spaces and at the text's own newlines; only a
    token wider than the column is broken, by _split_token."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            joined = f"{line} {word}" if line else word
            if cell_len(joined) <= width:
                line = joined
                continue
            cut = 0
            if line:
                cut = _lead(word, width - cell_len(line) - 1) if cell_len(word) > width else 0
                lines.append(f"{line} {word[:cut]}" if cut else line)
            *full, line = _split_token(word[cut:], width)
            lines.extend(full)
        lines.append(line)
    return lines


def _shorten_id(text: str, width: int) -> str:
    """An id too long for its column keeps its head and its tail (a group's name and hash)."""
    if cell_len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + (text[-tail:] if tail else "")


class _Column:
    """One table column and the widths it can take (terminal cells, without padding)."""

    def __init__(self, name: str, cells: list[str]) -> None:
        self.name = name
        self.cells = cells
        self.kind = "id" if self.name in _ID_COLUMNS else "short" if self.name in _SHORT_COLUMNS else "text"
        lines = [line for cell in self.cells for line in cell.split("\n")]
        self.widest = max((cell_len(line) for line in lines), default=0)
        self.natural = max(self.widest, cell_len(self.name))
        # A header breaks after its underscores if it must (`primary_` / `activity`).
        self.header_min = max(cell_len(p) for p in _HEADER_PIECES.findall(self.name))
        words = [word for line in lines for word in line.split()]
        self.word = max((cell_len(w) for w in words), default=0)
        self.segment = max((cell_len(s) for w in words for s in _PATH_PIECES.findall(w)), default=0)
        self.piece = max((cell_len(s) for w in words for s in _BREAK_PIECES.findall(w)), default=0)
        self.empty = not any(self.cells)

    def floor(self, stage: int) -> int:
        """The narrowest this column may be at each stage of squeezing a table: 0 nothing wraps;
        1 text wraps at spaces, headers after underscores; 2 ids are shortened; 3 an over-long
        token breaks after its path separators; 4 also after punctuation (`unruffled-` /
        `mcclintock`), never inside a word or a part of a path up to _SEGMENT_MAX long; 5 (a
        terminal too narrow for anything else) text as narrow as _TEXT_LAST, words and all."""
        if stage == 0:
            return self.natural
        if self.kind == "short":
            return max(self.header_min, self.widest)
        if self.kind == "id":
            return max(self.header_min, self.widest if stage < 2 else min(self.widest, _ID_MIN))
        if self.empty:
            return self.header_min
        if stage == 5:
            return min(self.natural, max(self.header_min, _TEXT_LAST))
        if stage < 3:
            return min(self.natural, max(self.header_min, self.word, _TEXT_MIN))
        part = min(self.segment if stage == 3 else self.piece, _SEGMENT_MAX)
        return min(self.natural, max(self.header_min, part, _TEXT_MIN))


def _fit(columns: list[_Column], width: int, last_resort: bool = False) -> list[int] | None:
    """Column widths for a table `width` cells wide, squeezing no more than needed; None if it
    cannot fit. Spare room goes to short columns (whole headers), then text, then ids."""
    room = width - box_width([0] * len(columns))  # what the box itself takes
    for stage in range(6 if last_resort else 5):
        widths = [column.floor(stage) for column in columns]
        if sum(widths) > room:
            continue
        spare = room - sum(widths)
        # A short column grows only to its whole header (the cheapest first): a part is no use.
        shorts = [i for i, c in enumerate(columns) if c.kind == "short"]
        for i in sorted(shorts, key=lambda i: columns[i].natural - widths[i]):
            if columns[i].natural - widths[i] <= spare:
                spare -= columns[i].natural - widths[i]
                widths[i] = columns[i].natural
        for kind in ("text", "id"):
            growing = [i for i, c in enumerate(columns) if c.kind == kind]
            while spare > 0:
                open_ = [i for i in growing if widths[i] < columns[i].natural]
                if not open_:
                    break
                narrowest = min(open_, key=lambda i: widths[i])  # the narrowest grows first
                widths[narrowest] += 1
                spare -= 1
        return widths
    return None


def note(text: str, plain: bool, screen: Screen | None) -> None:
    """A line after the rows or instead of them: as it is in plain lines, wrapped in a table's."""
    if plain or screen is None:
        _print_line(text, screen)
    else:
        _print_line("\n".join(_wrap(_CONTROL.sub("", text), screen.width)), screen)


def _print_line(line: str, screen: Screen | None) -> None:
    """One line of a plain listing, to the screen's file when one is given."""
    file = screen.file if screen is not None else sys.stdout
    with reader_may_leave(file):
        file.write(line + "\n")


@contextmanager
def reader_may_leave(file: IO[str] | None = None) -> Iterator[None]:
    """`… | head` closes the pipe early: stop quietly (exit 0), not with `error: Broken pipe`."""
    try:
        yield
        (file or sys.stdout).flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's flush at exit
        raise SystemExit(0) from None


def print_rows(
    rows: list[dict[str, Any]],
    columns: list[str],
    *,
    title: str,
    plain: bool,
    drops: tuple[str, ...] = (),
    screen: Screen | None = None,
) -> None:
    """The one renderer of every command that prints rows: plain tab-separated lines, or a table
    whose ids, times and counts never wrap and whose text wraps at spaces, leaving out the
    columns of `drops` (in that order, after empty ones) before any word would be split."""
    if plain:
        lines = ["\t".join(columns)]
        lines += ["\t".join(_plain_cell(row.get(column)) for column in columns) for row in rows]
        _print_line("\n".join(lines), screen)
        return
    screen = screen or Screen()
    table_columns = [_Column(name, [_cell(name, row.get(name)) for row in rows]) for name in columns]
    optional = [c.name for c in table_columns if c.empty] + [d for d in drops if d in columns]
    optional = list(dict.fromkeys(optional))
    # Too narrow a terminal for even those: ids, times and counts go next, then text, from the
    # right; a few columns whole read better than every column folded to a letter.
    rest = [c for c in reversed(table_columns) if c.name not in optional]
    order = optional + [c.name for c in rest if c.kind != "text"] + [c.name for c in rest if c.kind == "text"]
    order = order[: len(table_columns) - 1]  # one column always stays
    for dropped in range(len(order) + 1):
        kept = [c for c in table_columns if c.name not in order[:dropped]]
        widths = _fit(kept, screen.width, last_resort=dropped >= len(optional))
        if widths is not None:
            break
    else:  # the one column left is wider than the terminal: folded to its width
        widths = [max(screen.width - 4, 1)]
        kept[0].kind = "text"
    for column, width in zip(kept, widths, strict=True):
        if column.kind == "id":
            column.cells = [_shorten_id(cell, width) for cell in column.cells]
        elif column.kind == "text":
            column.cells = ["\n".join(_wrap(cell, width)) for cell in column.cells]
    header = [_wrap(column.name, width) for column, width in zip(kept, widths, strict=True)]
    body = [[cell.split("\n") for cell in cells] for cells in zip(*(c.cells for c in kept), strict=True)]
    # A title may hold the user's own words (`search: …`): no escape sequence reaches the terminal.
    title_lines = _wrap(_CONTROL.sub("", title), box_width(widths))
    lines = table_lines(screen, title_lines, header, body, widths)
    hidden = [c.name for c in table_columns if c not in kept]
    if hidden:
        lines += _wrap(
            f"hidden at {screen.width} columns: {', '.join(hidden)} (--plain and --json have them)",
            screen.width,
        )
    _print_line("\n".join(lines), screen)


# The columns a table shows (JSON has every field): what fits a terminal and answers the question.
_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "decisions": ("session_id", "valid_at", "decision", "rationale", "confidence", "by", "files"),
    "errors": ("session_id", "valid_at", "error", "root_cause", "fix", "times_seen"),
    "config-changes": ("valid_at", "until", "file", "setting", "old_value", "new_value", "session_id"),
    "files": ("path", "sessions", "last_modified_at", "group_id"),
    "sessions": (
        "session_id",
        "started_at",
        "agent",
        "primary_activity",
        "activity_score",
        "outcome",
        "objective",
    ),
    "commits": ("sha", "committed_at", "branch", "message", "pull_request", "session_id", "objective"),
    "tests": ("valid_at", "session_id", "framework", "passed", "total", "failed", "coverage_pct"),
    "session": ("relation", "label", "name"),
    "search": ("kind", "type", "text", "score", "group_id"),
}
# What a narrow terminal leaves out first (after columns with nothing in them), rather than
# squeezing the text columns until their words break. --plain and --json always have them all.
_TABLE_DROPS: dict[str, tuple[str, ...]] = {
    "decisions": ("by", "files", "confidence", "rationale"),
    "errors": ("times_seen", "root_cause"),
    "config-changes": ("until", "old_value", "session_id"),
    "files": ("group_id", "last_modified_at"),
    "sessions": ("activity_score", "outcome", "agent", "primary_activity"),
    "commits": ("pull_request", "objective", "branch"),
    "tests": ("coverage_pct", "failed", "framework"),
    "search": ("group_id", "score", "kind"),
}


# A table is for reading at the prompt: the first rows, and how many more there are.
TABLE_ROWS = 50


def print_table(
    rows: list[dict[str, Any]],
    title: str,
    kind: str | None = None,
    limit: int | None = None,
    *,
    plain: bool = False,
    screen: Screen | None = None,
) -> None:
    """Query or search rows in the columns of _TABLE_COLUMNS: a table of the first rows, or with
    `plain` every row (up to `limit`)."""
    if not plain:
        screen = screen or Screen()
    if not rows:
        # Also in plain lines: one line where the header would be, so `tail -n +2` is still empty.
        note(f"no {title} found", plain, screen)
        return
    shown = rows[:limit] if plain else rows[: limit or TABLE_ROWS]
    columns = [
        c
        for c in _TABLE_COLUMNS.get(kind or title, tuple(rows[0]))
        if c in rows[0] and (c not in _ONLY_WHEN_SET or any(row.get(c) is not None for row in shown))
    ]
    more = len(shown) < len(rows)
    print_rows(
        shown,
        columns,
        title=f"{title} ({len(shown)}{'; more exist' if more else ''})",
        plain=plain,
        drops=_TABLE_DROPS.get(kind or title, ()),
        screen=screen,
    )
    if more:
        note(
            "more rows: --limit N to see N of them, --plain for every row, --json for every field",
            plain,
            screen,
        )
