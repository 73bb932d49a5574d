"""Results in the Test Anything Protocol (bats --tap, prove, any TAP producer) and bats' own
closing line: the plan `1..N`, one `ok` / `not ok` line a test, directives `# SKIP` and `# TODO`."""

from __future__ import annotations

import re

from .counts import Counts

_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(not )?ok \d+(?: -)? ?(.*)$")
# A directive after the description; it starts where its spaces start (one pass over a long line).
_DIRECTIVE = re.compile(r"(?<!\s)\s+#\s*(SKIP|TODO)\b.*$|^#\s*(SKIP|TODO)\b.*$", re.IGNORECASE)
# bats' pretty format: `3 tests, 1 failure` (`, 1 skipped`), the failed cases as `✗ name`.
_BATS_TOTAL = re.compile(r"^(\d+) tests?, (\d+) failures?(?:, (\d+) skipped)?")
_BATS_FAILED = re.compile(r"^\s*✗ (.+)$")


def tap_counts(lines: list[str]) -> Counts | None:
    """A TAP stream's top-level results (a subtest is indented): a `# TODO` test that fails is
    expected to, and counts as skipped."""
    if not any(_PLAN.match(line) for line in lines):
        return None
    counts = Counts("tap")
    for line in lines:
        m = _RESULT.match(line)
        if m is None:
            continue
        failed, name = m.group(1), m.group(2)
        directive = _DIRECTIVE.search(name)
        name = name[: directive.start()] if directive else name
        if directive:
            counts.skipped += 1
        elif failed:
            counts.failed += 1
            counts.failed_tests.append(name)
        else:
            counts.passed += 1
    return counts if counts.passed + counts.failed + counts.skipped else None


def bats_counts(lines: list[str]) -> Counts | None:
    """bats' closing line in its default (pretty) format."""
    m = next((m for line in reversed(lines) if (m := _BATS_TOTAL.match(line.strip()))), None)
    if m is None:
        return None
    total, failed, skipped = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    counts = Counts("bats", total=total, passed=total - failed - skipped, failed=failed, skipped=skipped)
    counts.failed_tests = [f.group(1) for line in lines if (f := _BATS_FAILED.match(line))]
    return counts
