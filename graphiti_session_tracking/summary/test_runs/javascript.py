"""The JavaScript runners' totals and failed tests: jest, vitest, bun."""

from __future__ import annotations

import re

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
_BUN_FAILED = re.compile(r"^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$")


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
