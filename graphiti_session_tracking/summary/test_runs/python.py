"""pytest's and unittest's totals and failed tests."""

from __future__ import annotations

import re

from .counts import Counts, line_items

_PYTEST_TOTALS = re.compile(
    r"^=*\s*(?P<body>no tests ran|\d+ \w+(?:, \d+ \w+)*)\s+in\s+[\d.]+\s?(?:s|seconds)(?:\s*\([\d:.]+\))?\s*=*$"
)
_PYTEST_ITEM = re.compile(
    r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun|reruns)"
)
_PYTEST_SHORT_FAILED = re.compile(r"^(?:FAILED|ERROR) (?!\()(\S+)")
_PYTEST_VERBOSE_FAILED = re.compile(r"^(\S+::\S+) (?:FAILED|ERROR)\b")


def pytest_counts(lines: list[str]) -> Counts | None:
    """pytest's closing line; xpassed counts as passed, xfailed as skipped, errors as failed."""
    counts = Counts("pytest")
    found = False
    for line in lines:
        match = _PYTEST_TOTALS.match(line.strip())
        if match is None:
            continue
        body = match.group("body")
        items = {} if body == "no tests ran" else line_items(body, _PYTEST_ITEM)
        if items is None:
            continue
        found = True
        counts.passed += items.get("passed", 0) + items.get("xpassed", 0)
        counts.failed += items.get("failed", 0) + items.get("error", 0) + items.get("errors", 0)
        counts.skipped += items.get("skipped", 0) + items.get("xfailed", 0)
    if not found:
        return None
    for line in lines:
        match = _PYTEST_SHORT_FAILED.match(line) or _PYTEST_VERBOSE_FAILED.match(line)
        if match:
            counts.failed_tests.append(match.group(1))
    return counts


# --- unittest -----------------------------------------------------------------------------------

_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_UNITTEST_STATUS = re.compile(r"^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?$")
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^)]*)\)")


def unittest_counts(lines: list[str]) -> Counts | None:
    """unittest's "Ran N tests" and the status line after it: OK / FAILED (failures=1, ...)."""
    counts = Counts("unittest")
    found = False
    for index, line in enumerate(lines):
        ran = _UNITTEST_RAN.match(line.strip())
        if ran is None:
            continue
        status = next(
            (m for m in (_UNITTEST_STATUS.match(ln.strip()) for ln in lines[index + 1 : index + 4]) if m),
            None,
        )
        if status is None:
            continue
        found = True
        run = int(ran.group(1))
        details: dict[str, int] = {}
        for part in (status.group(2) or "").split(","):
            key, _, value = part.partition("=")
            if value.strip().isdigit():
                details[key.strip()] = int(value)
        failed = details.get("failures", 0) + details.get("errors", 0)
        failed += details.get("unexpected successes", 0)
        skipped = details.get("skipped", 0) + details.get("expected failures", 0)
        counts.total += run
        counts.failed += failed
        counts.skipped += skipped
        counts.passed += max(0, run - failed - skipped)
    if not found:
        return None
    for line in lines:
        match = _UNITTEST_FAILED.match(line)
        if match:
            name, where = match.groups()
            # Python 3.11+ prints "test_x (pkg.mod.Class.test_x)", older "test_x (pkg.mod.Class)".
            counts.failed_tests.append(where if where.endswith("." + name) else f"{where}.{name}")
    return counts
