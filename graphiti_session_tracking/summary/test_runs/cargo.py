"""cargo test's and cargo nextest's totals and failed tests."""

from __future__ import annotations

import re

from .counts import Counts, line_items

_CARGO_RESULT = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured"
)
_CARGO_FAILED_LINE = re.compile(r"^test (.+?) \.\.\. FAILED$")
_CARGO_STDOUT = re.compile(r"^---- (.+?) stdout ----$")
_NEXTEST_SUMMARY = re.compile(r"^Summary \[[^\]]*\]\s+(\d+) tests? run: (.*)$")
_NEXTEST_ITEM = re.compile(r"(\d+) (passed|failed|skipped|timed out|leaky|flaky)(?: \(.*\))?")
_NEXTEST_FAIL = re.compile(r"^(?:TRY \d+ )?(?:FAIL|TIMEOUT|SIGSEGV|SIGABRT) \[\s*[\d.]+s\] (.+)$")


def cargo_counts(lines: list[str]) -> Counts | None:
    """`test result:` lines, summed over the test binaries and doc-tests of one run; ignored = skipped."""
    counts = Counts("cargo")
    found = False
    in_failures = listed = False
    for line in lines:
        match = _CARGO_RESULT.match(line)
        if match:
            found = True
            passed, failed, ignored = (int(g) for g in match.groups()[:3])
            counts.passed += passed
            counts.failed += failed
            counts.skipped += ignored
            continue
        failed_line = _CARGO_FAILED_LINE.match(line) or _CARGO_STDOUT.match(line)
        if failed_line:
            counts.failed_tests.append(failed_line.group(1))
        # The second "failures:" block lists the failed tests, indented, up to a blank line.
        if line == "failures:":
            in_failures, listed = True, False
        elif in_failures and not line.strip():
            in_failures = not listed
        elif in_failures and line.startswith("    "):
            counts.failed_tests.append(line.strip())
            listed = True
        else:
            in_failures = False
    if found:
        return counts
    return _nextest(lines)


def _nextest(lines: list[str]) -> Counts | None:
    """cargo nextest's "Summary [..] N tests run: ..." line, reported as framework "cargo"."""
    counts = Counts("cargo")
    found = False
    for line in lines:
        match = _NEXTEST_SUMMARY.match(line.strip())
        if match is None:
            continue
        items = line_items(match.group(2), _NEXTEST_ITEM)
        if items is None:
            continue
        found = True
        counts.passed += items.get("passed", 0)
        counts.failed += items.get("failed", 0) + items.get("timed out", 0)
        counts.skipped += items.get("skipped", 0)
        counts.total += int(match.group(1)) + items.get("skipped", 0)
    if not found:
        return None
    for line in lines:
        fail = _NEXTEST_FAIL.match(line.strip())
        if fail:
            counts.failed_tests.append(fail.group(1).strip())
    return counts
