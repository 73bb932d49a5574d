"""The JavaScript runners' totals and failed tests: jest, vitest, bun."""

from __future__ import annotations

import re

from ..errors.reports import DURATION
from .counts import Counts, line_items

_JEST_TESTS = re.compile(r"^Tests:\s+(.*?),?\s*(\d+) total$")
_JS_ITEM = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_JEST_FAILED = re.compile(r"^\s*● (.+?)\s*$")
_VITEST_TESTS = re.compile(r"^Tests\s{2,}(.+?)\s*\((\d+)\)$")
_VITEST_FAILED = re.compile(r"^\s*FAIL\s+(.+? > .+?)\s*(?:\[.*\])?$")


def _js(lines: list[str], framework: str, totals: re.Pattern[str], failed: re.Pattern[str]) -> Counts | None:
    counts = Counts(framework)
    found = False
    for line in lines:
        match = totals.match(line.strip())
        if match is None:
            continue
        items = line_items(match.group(1), _JS_ITEM) if match.group(1) else {}
        if items is None:
            continue
        found = True
        counts.total += int(match.group(2))
        counts.passed += items.get("passed", 0)
        counts.failed += items.get("failed", 0)
        counts.skipped += items.get("skipped", 0) + items.get("todo", 0) + items.get("pending", 0)
    if not found:
        return None
    for line in lines:
        name = failed.match(line)
        if name and not name.group(1).startswith(("Console", "Test suite failed to run")):
            counts.failed_tests.append(name.group(1))
    return counts


def jest_counts(lines: list[str]) -> Counts | None:
    """jest's "Tests: 1 failed, 5 passed, 6 total"; failed tests from its "● Suite › test" headers."""
    return _js(lines, "jest", _JEST_TESTS, _JEST_FAILED)


def vitest_counts(lines: list[str]) -> Counts | None:
    """vitest's "Tests  1 failed | 5 passed (6)"; failed tests from "FAIL  file > suite > test"."""
    return _js(lines, "vitest", _VITEST_TESTS, _VITEST_FAILED)


_BUN_COUNT = re.compile(r"^\s*(\d+) (pass|fail|skip|todo)$")
_BUN_RAN = re.compile(r"^\s*Ran (\d+) tests? across \d+ files?\.")
_BUN_FAILED = re.compile(r"^(?:\(fail\)|✗) (.+?)(?: \[[\d.]+m?s\])?$")


def bun_counts(lines: list[str]) -> Counts | None:
    """bun's " 12 pass / 1 fail / Ran 13 tests across 2 files." (also when a wrapper kept only the
    last lines); failed tests from its "(fail) suite > test" lines."""
    if not any(_BUN_RAN.match(line) for line in lines):
        return None
    counts = Counts("bun")
    for line in lines:
        if match := _BUN_COUNT.match(line):
            number, word = int(match.group(1)), match.group(2)
            if word == "pass":
                counts.passed += number
            elif word == "fail":
                counts.failed += number
            else:
                counts.skipped += number
        elif match := _BUN_RAN.match(line):
            counts.total += int(match.group(1))
        elif match := _BUN_FAILED.match(line.strip()):
            counts.failed_tests.append(match.group(1))
    return counts


# node --test's totals (`ℹ tests 3`, `ℹ pass 2`, `ℹ fail 1`; `# tests 3` from its TAP reporter) and
# its failed cases (`✖ parses dates (1.2ms)`, not the `✖ failing tests:` heading; TAP's `not ok`).
_NODE_TOTAL = re.compile(r"^[ℹ#] (tests|pass|fail|cancelled|skipped|todo) (\d+)$")
_NODE_FAILED = re.compile(
    r"^\s*(?:✖ (?!failing tests:|\d+ problems? \()|not ok \d+ - (?!.*#\s*(?:TODO|SKIP)\b))(.+)$"
)


def node_counts(lines: list[str]) -> Counts | None:
    """node --test's own totals, printed once at the end of the run."""
    totals = {m.group(1): int(m.group(2)) for line in lines if (m := _NODE_TOTAL.match(line.strip()))}
    if not {"tests", "pass", "fail"} <= totals.keys():
        return None
    counts = Counts("node", total=totals["tests"], passed=totals["pass"])
    counts.failed = totals["fail"] + totals.get("cancelled", 0)
    counts.skipped = totals.get("skipped", 0) + totals.get("todo", 0)
    counts.failed_tests = [
        DURATION.sub("", m.group(1)).rstrip() for line in lines if (m := _NODE_FAILED.match(line))
    ]
    return counts


# mocha's `  3 passing (12ms)`, `  1 failing`, `  2 pending`, and the failed cases its listing numbers
# (`    1) parses dates`) above the totals.
_MOCHA_TOTAL = re.compile(r"^(\d+) (passing|failing|pending)(?: \(.+\))?$")
_MOCHA_FAILED = re.compile(r"^\s+\d+\) (.+)$")


def mocha_counts(lines: list[str]) -> Counts | None:
    """mocha's closing lines; `passing` must be among them (the other two are printed only when not 0)."""
    at = next(
        (i for i, line in enumerate(lines) if (m := _MOCHA_TOTAL.match(line.strip())) and m[2] == "passing"),
        None,
    )
    if at is None:
        return None
    totals = {m[2]: int(m[1]) for line in lines[at : at + 4] if (m := _MOCHA_TOTAL.match(line.strip()))}
    counts = Counts(
        "mocha", passed=totals["passing"], failed=totals.get("failing", 0), skipped=totals.get("pending", 0)
    )
    counts.failed_tests = [m.group(1) for line in lines[:at] if (m := _MOCHA_FAILED.match(line))]
    return counts


# Playwright's closing lines (`  1 failed`, its cases listed under it, `  2 passed (8.0s)`), read only
# in a run that is Playwright's: it said `Running N tests using …` or named a case `[project] › file`.
_PLAYWRIGHT_TOTAL = re.compile(
    r"^(\d+) (passed|failed|flaky|skipped|interrupted|did not run)(?: \([\d.]+m?s\))?$"
)
_PLAYWRIGHT_RUN = re.compile(r"^Running \d+ tests? using \d+ workers?")
_PLAYWRIGHT_CASE = re.compile(r"^\s+(\[[\w -]+\] › \S.*)$")


def playwright_counts(lines: list[str]) -> Counts | None:
    """Playwright's totals (a flaky test passed in the end), with the cases it lists as failed."""
    if not any(_PLAYWRIGHT_RUN.match(line.strip()) or _PLAYWRIGHT_CASE.match(line) for line in lines):
        return None
    counts = Counts("playwright")
    found = False
    word = ""
    for line in lines:
        if m := _PLAYWRIGHT_TOTAL.match(line.strip()):
            found = True
            number, word = int(m.group(1)), m.group(2)
            if word in ("passed", "flaky"):
                counts.passed += number
            elif word in ("failed", "interrupted"):
                counts.failed += number
            else:
                counts.skipped += number
        elif word in ("failed", "interrupted") and (case := _PLAYWRIGHT_CASE.match(line)):
            counts.failed_tests.append(case.group(1))
        else:
            word = ""
    return counts if found else None
