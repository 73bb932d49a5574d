"""Test results read from what the test runners printed, so a summary can say how the tests stood.

No LLM: each runner ends its output with a totals line of a fixed shape (pytest's
"== 2 failed, 5 passed in 0.3s ==", cargo's "test result: ok. 5 passed; ...", jest's
"Tests: 1 failed, 5 passed, 6 total", ...), and those lines are the runner's own count, more
reliable than anything inferred from the conversation. `extract_test_results` applies the parsers
to the Bash calls that ran tests and keeps the last run, since the last run is the state the
session left the code in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from .model import TestSummary

__all__ = ["extract_test_results", "is_test_command", "parse_test_output", "tool_output"]

__test__ = False  # the `test_` prefix is about test runs, not pytest tests

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass
class _Counts:
    """Counts of one framework, summed over every totals line it printed in one output."""

    framework: str
    total: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failed_tests: list[str] = field(default_factory=list)

    def summary(self, coverage: float | None) -> TestSummary:
        total = max(self.total, self.passed + self.failed + self.skipped)
        return TestSummary(
            framework=self.framework,
            total=total,
            passed=self.passed,
            failed=self.failed,
            skipped=self.skipped,
            coverage_pct=coverage,
            failed_tests=_unique(self.failed_tests) or None,
        )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


def _items(body: str, pattern: re.Pattern[str]) -> dict[str, int] | None:
    """`N word` items of a totals line; None when anything else is in it (not this runner's line)."""
    counts: dict[str, int] = {}
    pieces = [p.strip() for p in re.split(r"[,|]", body) if p.strip()]
    for piece in pieces:
        match = pattern.fullmatch(piece)
        if match is None:
            return None
        word = match.group(2).lower()
        counts[word] = counts.get(word, 0) + int(match.group(1))
    return counts


# --- pytest -------------------------------------------------------------------------------------

_PYTEST_TOTALS = re.compile(
    r"^=*\s*(?P<body>no tests ran|\d+ \w+(?:, \d+ \w+)*)\s+in\s+[\d.]+\s?(?:s|seconds)(?:\s*\([\d:.]+\))?\s*=*$"
)
_PYTEST_ITEM = re.compile(
    r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun|reruns)"
)
_PYTEST_SHORT_FAILED = re.compile(r"^(?:FAILED|ERROR) (?!\()(\S+)")
_PYTEST_VERBOSE_FAILED = re.compile(r"^(\S+::\S+) (?:FAILED|ERROR)\b")


def _pytest(lines: list[str]) -> _Counts | None:
    """pytest's closing line; xpassed counts as passed, xfailed as skipped, errors as failed."""
    counts = _Counts("pytest")
    found = False
    for line in lines:
        match = _PYTEST_TOTALS.match(line.strip())
        if match is None:
            continue
        body = match.group("body")
        items = {} if body == "no tests ran" else _items(body, _PYTEST_ITEM)
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


def _unittest(lines: list[str]) -> _Counts | None:
    """unittest's "Ran N tests" and the status line after it: OK / FAILED (failures=1, ...)."""
    counts = _Counts("unittest")
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


# --- cargo test / cargo nextest -----------------------------------------------------------------

_CARGO_RESULT = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured"
)
_CARGO_FAILED_LINE = re.compile(r"^test (.+?) \.\.\. FAILED$")
_CARGO_STDOUT = re.compile(r"^---- (.+?) stdout ----$")
_NEXTEST_SUMMARY = re.compile(r"^Summary \[[^\]]*\]\s+(\d+) tests? run: (.*)$")
_NEXTEST_ITEM = re.compile(r"(\d+) (passed|failed|skipped|timed out|leaky|flaky)(?: \(.*\))?")
_NEXTEST_FAIL = re.compile(r"^(?:TRY \d+ )?(?:FAIL|TIMEOUT|SIGSEGV|SIGABRT) \[\s*[\d.]+s\] (.+)$")


def _cargo(lines: list[str]) -> _Counts | None:
    """`test result:` lines, summed over the test binaries and doc-tests of one run; ignored = skipped."""
    counts = _Counts("cargo")
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


def _nextest(lines: list[str]) -> _Counts | None:
    """cargo nextest's "Summary [..] N tests run: ..." line, reported as framework "cargo"."""
    counts = _Counts("cargo")
    found = False
    for line in lines:
        match = _NEXTEST_SUMMARY.match(line.strip())
        if match is None:
            continue
        items = _items(match.group(2), _NEXTEST_ITEM)
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


# --- go test ------------------------------------------------------------------------------------

_GO_OK = re.compile(r"^ok\s+(\S+)\s+(?:[\d.]+s|\(cached\))")
_GO_FAIL_PKG = re.compile(r"^FAIL\s+(\S+)\s+(?:[\d.]+s|\[(build|setup) failed\])")
_GO_TEST = re.compile(r"^(\s*)--- (PASS|FAIL|SKIP): (\S+)")
_GO_COVERAGE = re.compile(r"\s*coverage: (\d+(?:\.\d+)?)% of statements")


def _go(lines: list[str]) -> _Counts | None:
    """go test: top-level `--- PASS/FAIL/SKIP` lines when verbose; otherwise packages are the unit.

    Without -v go prints nothing for passing tests, only `ok <package>`; counting packages
    then is the only honest count. A package that failed to build counts as one failure.
    """
    ok_packages: list[str] = []
    failed_packages: list[str] = []
    broken_packages: list[str] = []
    results: dict[str, list[str]] = {"PASS": [], "FAIL": [], "SKIP": []}
    verbose = False
    for line in lines:
        if line.startswith("=== RUN"):
            verbose = True
        if ok := _GO_OK.match(line):
            ok_packages.append(ok.group(1))
        elif fail := _GO_FAIL_PKG.match(line):
            (broken_packages if fail.group(2) else failed_packages).append(fail.group(1))
        elif (test := _GO_TEST.match(line)) and not test.group(1):
            results[test.group(2)].append(test.group(3))
            verbose = verbose or test.group(2) != "FAIL"
    if not (ok_packages or failed_packages or broken_packages or any(results.values())):
        return None
    counts = _Counts("go", failed_tests=[*results["FAIL"], *broken_packages])
    if verbose:
        counts.passed = len(results["PASS"])
        counts.failed = len(results["FAIL"]) + len(broken_packages)
        counts.skipped = len(results["SKIP"])
    else:
        counts.passed = len(ok_packages)
        counts.failed = len(failed_packages) + len(broken_packages)
    return counts


# --- jest / vitest ------------------------------------------------------------------------------

_JEST_TESTS = re.compile(r"^Tests:\s+(.*?),?\s*(\d+) total$")
_JS_ITEM = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_JEST_FAILED = re.compile(r"^\s*● (.+?)\s*$")
_VITEST_TESTS = re.compile(r"^Tests\s{2,}(.+?)\s*\((\d+)\)$")
_VITEST_FAILED = re.compile(r"^\s*FAIL\s+(.+? > .+?)\s*(?:\[.*\])?$")


def _js(lines: list[str], framework: str, totals: re.Pattern[str], failed: re.Pattern[str]) -> _Counts | None:
    counts = _Counts(framework)
    found = False
    for line in lines:
        match = totals.match(line.strip())
        if match is None:
            continue
        items = _items(match.group(1), _JS_ITEM) if match.group(1) else {}
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


def _jest(lines: list[str]) -> _Counts | None:
    """jest's "Tests: 1 failed, 5 passed, 6 total"; failed tests from its "● Suite › test" headers."""
    return _js(lines, "jest", _JEST_TESTS, _JEST_FAILED)


def _vitest(lines: list[str]) -> _Counts | None:
    """vitest's "Tests  1 failed | 5 passed (6)"; failed tests from "FAIL  file > suite > test"."""
    return _js(lines, "vitest", _VITEST_TESTS, _VITEST_FAILED)


_BUN_COUNT = re.compile(r"^\s*(\d+) (pass|fail|skip|todo)$")
_BUN_RAN = re.compile(r"^\s*Ran (\d+) tests? across \d+ files?\.")
_BUN_FAILED = re.compile(r"^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$")


def _bun(lines: list[str]) -> _Counts | None:
    """bun's " 12 pass / 1 fail / Ran 13 tests across 2 files." (also when a wrapper kept only the
    last lines); failed tests from its "(fail) suite > test" lines."""
    if not any(_BUN_RAN.match(line) for line in lines):
        return None
    counts = _Counts("bun")
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


# --- coverage -----------------------------------------------------------------------------------

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
        packages = [
            m.group(1) for line in lines if line.startswith("ok") and (m := _GO_COVERAGE.search(line))
        ]
        alone = [m.group(1) for line in lines if (m := _GO_COVERAGE.match(line))]
        figures = packages or alone
        if len(figures) == 1:
            found = float(figures[0])
    return found


# --- public API ---------------------------------------------------------------------------------

_PARSERS: tuple[Callable[[list[str]], _Counts | None], ...] = (
    _pytest,
    _unittest,
    _cargo,
    _go,
    _jest,
    _vitest,
    _bun,
)


def parse_test_output(text: str) -> TestSummary | None:
    """The runner's own totals from its output; None when no known runner's totals line is there.

    When several runners printed totals in one output (a `make test` running two suites), the one
    that ran the most tests is reported, since TestSummary holds one framework.
    """
    lines = [_ANSI.sub("", line).rstrip() for line in text.splitlines()]
    found = [counts for parse in _PARSERS if (counts := parse(lines)) is not None]
    if not found:
        return None
    best = max(found, key=lambda c: max(c.total, c.passed + c.failed + c.skipped))
    return best.summary(coverage_percent(lines))


_TEST_COMMAND = re.compile(
    r"""
    (?<![\w.-])(?:py\.test|pytest|tox|nox)(?![\w.-])           # pytest, python -m pytest, uv run pytest
    | -m\s+unittest\b | \bmanage\.py\s+test\b | \bhatch\s+(?:run\s+\S*)?test\b
    | \bcargo\s+(?:\+\S+\s+)?(?:test|t|nextest|llvm-cov|tarpaulin)\b
    | \bgo\s+test\b | \bgotestsum\b
    | \b(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?(?:test|t)(?![\w-])
    | (?<![\w.-])(?:jest|vitest)(?![\w.-])
    | (?:^|[\n;&|(`]|\$\()\s*(?:\w+=\S*\s+)*(?:just|make|task|mise)\b | \b(?:npm|yarn|pnpm|bun)\s+run\s
    """,
    re.VERBOSE,
)


def is_test_command(command: str) -> bool:
    """A command that may run tests: test runners, and task runners (just, make, npm run) that wrap them.

    Deliberately broad: a call counts only when its output also parses as a runner's totals.
    """
    return bool(_TEST_COMMAND.search(command))


def tool_output(call: ToolCall) -> str:
    """A Bash call's full stdout and stderr when Claude Code recorded them, else the result text."""
    if call.result is None:
        return ""
    structured = call.result.structured or {}
    parts = [structured.get(key) for key in ("stdout", "stderr")]
    texts = [part for part in parts if isinstance(part, str) and part]
    return "\n".join(texts) if texts else call.result.text


def extract_test_results(session: Session) -> TestSummary | None:
    """The last test run of the session, which is where the session left the tests.

    Runs whose output has no totals line (cut off, interrupted, a build that failed first) are
    passed over, so the last run that reported is used. Sub-agent calls count too, in time order.
    """
    calls = [c for c in session.tool_calls if c.kind is ToolKind.COMMAND and c.result is not None]
    if all(c.timestamp is not None for c in calls):
        calls.sort(key=lambda c: c.timestamp.timestamp() if c.timestamp else 0.0)  # stable sort
    for call in reversed(calls):
        command = call.input.get("command")
        if isinstance(command, str) and is_test_command(command):
            summary = parse_test_output(tool_output(call))
            if summary is not None:
                return summary
    return None
