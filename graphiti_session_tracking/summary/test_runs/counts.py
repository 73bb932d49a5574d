"""What every runner's parser fills in: one framework's counts, summed over the totals lines it
printed in one output."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import TestSummary


@dataclass
class Counts:
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
            failed_tests=unique(self.failed_tests) or None,
        )


def unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


def line_items(body: str, pattern: re.Pattern[str]) -> dict[str, int] | None:
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
