"""Where tables and notes are drawn: a file, its width in cells, and whether it shows bold; and the
box around cells that render.py has already laid out (widths chosen, text wrapped).

Drawn here rather than by rich's console and table: the layout was already ours, and for the box
alone they cost a question typed at the prompt 50 ms to import and 30 ms to draw 50 rows. The box
is rich's heavy-head one, as the tables always had.
"""

from __future__ import annotations

import os
import sys
from typing import IO

from rich.cells import cell_len

_TOP = tuple("┏━┳┓")  # left, fill, between columns, right
_HEAD = tuple("┃┃┃")  # left, between, right
_UNDER_HEAD = tuple("┡━╇┩")
_BODY = tuple("│││")
_BOTTOM = tuple("└─┴┘")
_BOLD, _ITALIC, _RESET = "\x1b[1m", "\x1b[3m", "\x1b[0m"


def _terminal_width() -> int:
    """COLUMNS, else the width of whichever of stdin, stdout and stderr is a terminal, else 80 (as
    rich's console measured it: `--table | less` at the prompt is as wide as the terminal)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for descriptor in (0, 1, 2):
        try:
            return os.get_terminal_size(descriptor).columns or 80
        except OSError:
            continue
    return 80


def _shows_style(file: IO[str]) -> bool:
    """Bold headers and an italic title on a terminal that takes escape codes; never in a file."""
    try:
        terminal = file.isatty()
    except (AttributeError, ValueError):
        return False
    return terminal and os.environ.get("TERM", "") not in ("dumb", "unknown")


class Screen:
    """A table's destination: `file` (stdout), `width` in cells (the terminal's) and `styled`
    (whether it takes bold and italic: a terminal does, a pipe or a file does not)."""

    def __init__(self, file: IO[str] | None = None, width: int | None = None, styled: bool | None = None):
        self.file: IO[str] = file if file is not None else sys.stdout
        self.width = width if width is not None else _terminal_width()
        self.styled = _shows_style(self.file) if styled is None else styled

    def style(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.styled and text else text


def box_width(widths: list[int]) -> int:
    """A table's width in cells around columns of `widths`: a rule before each column and one
    after the last, a space of padding each side of every cell."""
    return sum(widths) + 3 * len(widths) + 1


def table_lines(
    screen: Screen,
    title: list[str],
    header: list[list[str]],
    rows: list[list[list[str]]],
    widths: list[int],
) -> list[str]:
    """The lines of a boxed table: the title's lines centred above it, each header cell's lines
    at the foot of the header (as rich set them), each row's cells from the top, padded to
    `widths` (cells, without the one space each side)."""
    total = box_width(widths)

    def rule(chars: tuple[str, ...]) -> str:
        left, fill, between, right = chars
        return left + between.join(fill * (width + 2) for width in widths) + right

    def band(cells: list[list[str]], edges: tuple[str, ...], code: str, bottom: bool) -> list[str]:
        left, between, right = edges
        height = max((len(cell) for cell in cells), default=1) or 1
        if bottom:
            cells = [[""] * (height - len(cell)) + cell for cell in cells]
        lines = []
        for at in range(height):
            parts = []
            for cell, width in zip(cells, widths, strict=True):
                text = cell[at] if at < len(cell) else ""
                parts.append(f" {screen.style(text, code)}{' ' * (width - cell_len(text))} ")
            lines.append(left + between.join(parts) + right)
        return lines

    lines = []
    for line in title:
        spare = max(total - cell_len(line), 0)
        lines.append(" " * (spare // 2) + screen.style(line, _ITALIC) + " " * (spare - spare // 2))
    lines.append(rule(_TOP))
    lines += band(header, _HEAD, _BOLD, bottom=True)
    lines.append(rule(_UNDER_HEAD))
    for row in rows:
        lines += band(row, _BODY, "", bottom=False)
    lines.append(rule(_BOTTOM))
    return lines
