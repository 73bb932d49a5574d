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
from collections.abc import Callable

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from ..model import TestSummary
from .cargo import cargo_counts
from .counts import Counts
from .coverage import coverage_percent
from .go import go_counts
from .javascript import bun_counts, jest_counts, mocha_counts, node_counts, playwright_counts, vitest_counts
from .python import pytest_counts, unittest_counts
from .tap import bats_counts, tap_counts

__all__ = ["extract_test_results", "is_test_command", "parse_test_output", "tool_output"]

__test__ = False  # the `test_` prefix is about test runs, not pytest tests

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

# One parser a runner, each in the module of its language; any of them may find totals in an output.
_PARSERS: tuple[Callable[[list[str]], Counts | None], ...] = (
    pytest_counts,
    unittest_counts,
    cargo_counts,
    go_counts,
    jest_counts,
    vitest_counts,
    bun_counts,
    node_counts,  # before TAP: its TAP reporter's stream carries its own totals too
    tap_counts,
    bats_counts,
    mocha_counts,
    playwright_counts,
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
    | (?<![\w.-])(?:jest|vitest|mocha|bats|prove)(?![\w.-]) | \bnode\s+(?:\S+\s+)*--test\b | \bplaywright\s+test\b
    | (?:^|[\n;&|(`]|\$\()\s*(?:\w+=\S*\s+)*(?:just|make|task|mise)\b | \b(?:npm|yarn|pnpm|bun)\s+run\s
    """,
    re.VERBOSE,
)


# The runner a TAP stream came from, named by the command that ran it: its output says only "TAP".
_TAP_PRODUCER = re.compile(r"(?<![\w.-])(bats|prove)(?![\w.-])")


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
                producer = _TAP_PRODUCER.search(command) if summary.framework == "tap" else None
                return summary.model_copy(update={"framework": producer.group(1)}) if producer else summary
    return None
