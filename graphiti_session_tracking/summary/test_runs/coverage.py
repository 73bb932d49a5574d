"""The coverage total a run printed: coverage.py / pytest-cov, llvm-cov, tarpaulin, istanbul, go."""

from __future__ import annotations

import re

from .go import GO_COVERAGE

_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)%$")
_TOTAL_COVERAGE = re.compile(r"Total coverage: (\d+(?:\.\d+)?)%")
_TARPAULIN = re.compile(r"^(\d+(?:\.\d+)?)% coverage, \d+/\d+ lines covered")


def _table_total(lines: list[str], index: int) -> float | None:
    """A "TOTAL" row (coverage.py, cargo llvm-cov): its only percentage, or the Lines column's."""
    tokens = lines[index].split()
    percents = [i for i, token in enumerate(tokens) if _PERCENT.match(token)]
    if not percents:
        return None
    chosen = percents[-1]
    if len(percents) > 1:
        # llvm-cov prints region, function, line (and branch) coverage; line coverage is the usual figure.
        for header in reversed(lines[max(0, index - 30) : index]):
            columns = re.split(r"\s{2,}", header.strip())
            if "Lines" in columns and "Cover" in columns[columns.index("Lines") :]:
                column = columns.index("Cover", columns.index("Lines"))
                if len(columns) == len(tokens) and column in percents:
                    chosen = column
                break
    return float(tokens[chosen].rstrip("%"))


def _js_all_files(lines: list[str], index: int) -> float | None:
    """istanbul's "All files | stmts | branch | funcs | lines |" row (jest, vitest): % Lines."""
    cells = [c.strip() for c in lines[index].split("|")]
    column = 4
    for header in reversed(lines[max(0, index - 5) : index]):
        names = [c.strip() for c in header.split("|")]
        if "% Lines" in names:
            column = names.index("% Lines")
            break
    try:
        return float(cells[column])
    except (IndexError, ValueError):
        return None


def coverage_percent(lines: list[str]) -> float | None:
    """The last coverage total printed: coverage.py / pytest-cov, llvm-cov, tarpaulin, istanbul, go."""
    found: float | None = None
    for index, line in enumerate(lines):
        value: float | None = None
        stripped = line.strip()
        if stripped.split()[:1] == ["TOTAL"]:
            value = _table_total(lines, index)
        elif stripped.startswith("All files") and "|" in stripped:
            value = _js_all_files(lines, index)
        elif match := _TOTAL_COVERAGE.search(stripped) or _TARPAULIN.match(stripped):
            value = float(match.group(1))
        if value is not None and 0 <= value <= 100:
            found = value
    if found is None:
        # go prints one figure per package (on its "ok" line, and alone too with -v) and no total:
        # usable only when one package reported coverage.
        packages = [m.group(1) for line in lines if line.startswith("ok") and (m := GO_COVERAGE.search(line))]
        alone = [m.group(1) for line in lines if (m := GO_COVERAGE.match(line))]
        figures = packages or alone
        if len(figures) == 1:
            found = float(figures[0])
    return found
