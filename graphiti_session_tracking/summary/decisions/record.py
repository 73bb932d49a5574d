"""What every channel of the package builds on: the confidence scale, the decision record with its
limits, and the Markdown pieces several channels read (list items, "(recommended)" marks)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .._sentences import cut
from ..model import DecisionRecord

MAX_DECISIONS = 10
# Forms below this are not recorded: an intention (0.5) or an action with its reason (0.4) was a
# decision a careful reader counts in fewer than half the rows, on sessions the rules were written
# on and on sessions nobody tuned for alike (bench/fidelity.py): precision first.
MIN_CONFIDENCE = 0.6
_DECISION_LIMIT = 300
_RATIONALE_LIMIT = 300

# The confidence of each form (the scale in the package docstring).
ASKED = 0.9
MARKED = 0.9
PICKED = 0.85
ACCEPTED = 0.8
LISTED = 0.8
PLANNED = 0.8
PLAN_STEP = 0.7
REDIRECTED = 0.7
SETTLED = 0.7
STATED = 0.6
INTENDED = 0.5
REASONED = 0.4

By = Literal["assistant", "user"]


@dataclass
class _Found:
    line: int
    record: DecisionRecord
    answered: bool = False  # the user's answer to the agent's question: never capped


def _record(
    decision: str,
    rationale: str,
    alternatives: list[str],
    confidence: float,
    by: By,
) -> DecisionRecord:
    decision = decision.strip().rstrip(".!:;,")
    rationale = rationale.strip().rstrip(".:")
    rationale = rationale[:1].upper() + rationale[1:]
    whole = [a for a in dict.fromkeys(alternatives) if a]
    return DecisionRecord(
        decision=cut(decision, _DECISION_LIMIT),
        rationale=_cut_at_sentence(rationale, _RATIONALE_LIMIT),
        alternatives=whole or None,
        confidence=confidence,
        by=by,
    )


# Read by several channels: an option's "(recommended)" mark, a Markdown list item and its name.
_RECOMMENDED = re.compile(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)")


def _lead(item: str) -> str:
    """A list item's name: the part before ' - ' or ': ' when it has one."""
    return re.split(r"\s+[-–—]\s+|:\s+", item, maxsplit=1)[0].strip()


def _cut_at_sentence(text: str, limit: int) -> str:
    """Up to `limit` characters ending at a sentence end when it must be shortened."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("; "))
    return head[: end + 1].rstrip(";") if end > limit // 3 else cut(text, limit)
