"""The assistant's structured prose: an explicit "Decision: …" marker, a "Key decisions" list,
a merge conflict's resolution listed side by side."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._sentences import plain, prose_lines
from .alternatives import _alternatives
from .record import _LIST_ITEM, LISTED, MARKED, STATED, _Found, _record

# --- Explicit markers: "Decision: …" (not a review's "Verdict: APPROVE": what it was asked for) ---

# A marker line: `- **Decision:** …`, `### Decision: …`; its word goes between the two parts.
MARKER_START = r"^\s*(?:[-*+]\s+)?(?:#{1,6}\s+)?(?:\*\*|__)?"
MARKER_END = r"(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$"
_MARKER = re.compile(
    MARKER_START + r"(decision|final decision|decided|chosen approach|chosen option)" + MARKER_END,
    re.IGNORECASE,
)
_MARKER_RATIONALE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:rationale|reason|reasoning|why|because)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*(.+)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"[\[<{].*[\]>}]|\b(?:TBD|TODO|N/A)\b|/|\bor\b", re.IGNORECASE)


def stated(written: str) -> str:
    """A marker's value as the line states it, without its closing punctuation; "" for a
    template's placeholder (`[APPROVE / REQUEST CHANGES]`, `TBD`) or a question."""
    value = re.sub(r"[^\w)\]'\"]+$", "", written).strip()
    if not value or written.endswith("?") or (_PLACEHOLDER.search(written) and len(written) < 40):
        return ""
    return value


def _marked(text: str, line: int, context: str) -> Iterator[_Found]:
    lines = prose_lines(text)
    for index, raw in enumerate(lines):
        marker = _MARKER.match(plain(raw))
        if marker is None:
            continue
        value = stated(plain(marker.group(2)).strip())
        if not value:
            continue
        rationale = ""
        if index + 1 < len(lines) and (why := _MARKER_RATIONALE.match(lines[index + 1])):
            rationale = plain(why.group(1))
        kind = marker.group(1).lower()
        decision = (
            value if kind in ("decision", "final decision", "decided") else f"{kind.capitalize()}: {value}"
        )
        if context:
            decision = f"{context}: {decision}"
        yield _Found(line, _record(decision, rationale, _alternatives(value), MARKED, "assistant"))


# --- A "Key decisions" list, as in a closing summary -------------------------------------------

_DECISIONS_HEADING = re.compile(
    r"^(?:(?:key|main|major|design|technical|architectural|architecture|important)\s+)?decisions?"
    r"(?:\s+(?:made|taken))?\s*:?$",
    re.IGNORECASE,
)
_ITEM_REASON = re.compile(r"\s+[-–—]\s+|,?\s+(?:because|since|so that)\s+", re.IGNORECASE)


def _listed(text: str, line: int) -> Iterator[_Found]:
    inside = False
    for raw in prose_lines(text):
        item = _LIST_ITEM.match(raw)
        if item is None:
            title = plain(raw).strip().rstrip(":").strip()
            inside = bool(_DECISIONS_HEADING.match(title + ":")) if title else inside
            continue
        if not inside or raw[: len(raw) - len(raw.lstrip())].count(" ") >= 2:  # nested detail
            continue
        body = plain(item.group(1)).strip()
        if not body or body.endswith("?"):
            continue
        reason = _ITEM_REASON.search(body)
        decision, rationale = (body[: reason.start()], body[reason.end() :]) if reason else (body, "")
        decision = decision.rstrip(":").strip()
        if decision:
            yield _Found(line, _record(decision, rationale, _alternatives(decision), LISTED, "assistant"))


# --- A merge conflict resolved: which side's change each hunk keeps -----------------------------

_RESOLUTION = re.compile(
    r"\b(?:the )?resol(?:ved|ution) (?:version|file|code) (?:needs|keeps|takes|should keep|combines)\b.*:$|"
    r"\bresolve (?:the|both|each|these) (?:merge )?conflicts?(?: hunks?)? by\b.*:$",
    re.IGNORECASE,
)


def _merged(text: str, line: int) -> Iterator[_Found]:
    """ "The resolved version needs: 1. your branch's X 2. origin/main's Y": a choice per side."""
    lines = prose_lines(text)
    for index, raw in enumerate(lines):
        if not _RESOLUTION.search(plain(raw).strip()):
            continue
        items = []
        for following in lines[index + 1 :]:
            item = _LIST_ITEM.match(following)
            if item is None:
                break
            items.append(plain(item.group(1)).strip())
        if len(items) >= 2:
            kept = "; ".join(re.sub(r"\s*\((.+)\)$", "", item) for item in items)
            reasons = "; ".join(m.group(1) for item in items if (m := re.search(r"\((.+)\)$", item)))
            yield _Found(
                line, _record(f"Resolve the merge conflict keeping {kept}", reasons, [], STATED, "assistant")
            )
