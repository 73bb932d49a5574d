"""Every channel's forms gathered: several forms of one choice kept once (the surest), every answer
the user gave to the agent's questions and at most MAX_DECISIONS others, of MIN_CONFIDENCE or
more, in transcript order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import SequenceMatcher

from graphiti_session_tracking.transcripts import Session, ToolKind

from ..model import DecisionRecord
from .answers import _asked, _picked_or_accepted, _rejections, _settled
from .bypass import _bypassed
from .marked import _listed, _marked, _merged
from .plans import _plans
from .prose import _content_words, _phrased
from .record import MAX_DECISIONS, MIN_CONFIDENCE, _Found


def extract_decisions(session: Session, min_confidence: float = MIN_CONFIDENCE) -> list[DecisionRecord]:
    """The user's answers and at most MAX_DECISIONS other decisions of `min_confidence` or more,
    near-duplicates dropped (the surer one kept), in transcript order."""
    found: list[_Found] = []
    for item in _every_form(session):
        key = _normalized(item.record.decision)
        if not key:
            continue
        twin = next((f for f in found if _same(item.record, key, f.record)), None)
        if twin is None:
            found.append(item)
        elif (item.record.confidence or 0, len(item.record.decision)) > (
            twin.record.confidence or 0,
            len(twin.record.decision),
        ):
            found[found.index(twin)] = item
    found = [f for f in found if (f.record.confidence or 0) >= min_confidence]
    # The user's answers to the agent's questions are each a choice the user made, however many;
    # the cap is on what the rules read from prose and plans: keep the surest, then the earliest.
    answered = [f for f in found if f.answered]
    read = [f for f in found if not f.answered]
    if len(read) > MAX_DECISIONS:
        ranked = sorted(read, key=lambda f: (-(f.record.confidence or 0), f.line))[:MAX_DECISIONS]
        read = [f for f in read if f in ranked]
    return [f.record for f in sorted(answered + read, key=lambda f: f.line)]


def _every_form(session: Session) -> Iterator[_Found]:
    yield from _asked(session)
    yield from _bypassed(session)
    yield from _plans(session)
    yield from _rejections(session)
    yield from _picked_or_accepted(session)
    yield from _settled(session)
    # What the user asked so far (a sub-agent's prompt is the assistant's own words, not a request).
    requests: list[str] = []
    for message in session.messages:
        if (
            message.is_human
            and not message.tool_results
            and not (message.is_sidechain or message.from_subagent)
        ):
            requests.append(message.text)
        elif message.role == "assistant":
            yield from _marked(message.text, message.line, "")
            yield from _listed(message.text, message.line)
            yield from _merged(message.text, message.line)
            yield from _phrased(message.text, message.line, requests)
            # The assistant's reasoning says its choices in the same words ("I should use X
            # instead of Y"), often where its visible text only acts on them.
            yield from _phrased(message.thinking, message.line, requests)
    for call in session.tool_calls:
        if call.kind is ToolKind.SUBAGENT and call.succeeded and call.result is not None:
            described = str(call.input.get("description") or "").strip()
            yield from _marked(call.result.text, call.line, described)


def _normalized(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _same(record: DecisionRecord, key: str, other: DecisionRecord) -> bool:
    """The same choice said twice: near-identical words, or the same alternative turned down in
    much the same words ("I need to use .ts instead of .js" then "I'll update the imports to use .ts
    instead of .js")."""
    asked, other_asked = _question(record.decision), _question(other.decision)
    if asked and other_asked and _normalized(asked) != _normalized(other_asked):
        return False  # answers to two questions: two choices, however alike ("Which tool for part 1?")
    if _similar(key, _normalized(other.decision)):
        return True
    words, others = _content_words(_chosen(record.decision)), _content_words(_chosen(other.decision))
    if min(len(words), len(others)) >= 3 and len(words & others) >= 0.4 * min(len(words), len(others)):
        return True  # "Do you want me to update the plan …? GitHub App + Actions workflow" and "use the GitHub App …"
    shared = {a.lower() for a in record.alternatives or []} & {a.lower() for a in other.alternatives or []}
    if not shared:
        return False
    return len(words & others) >= 0.4 * min(len(words), len(others))


def _chosen(decision: str) -> str:
    """What was chosen, without the question it answers ("Which installation method do you want?
    Pre-built binaries"): two questions of one session share their wording, not their choice."""
    return decision.rsplit("? ", 1)[-1]


def _question(decision: str) -> str:
    """The question a user's answer is given with ("Which tool for part 1?"), else ""."""
    asked, _, chosen = decision.rpartition("? ")
    return asked if chosen else ""


def _similar(a: str, b: str) -> bool:
    """Near-identical: one contains the other, or they share most of their characters in order."""
    return a in b or b in a or SequenceMatcher(None, a, b).ratio() >= 0.85
