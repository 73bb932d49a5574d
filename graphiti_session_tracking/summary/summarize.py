"""From a parsed session to its summary: classify tools, detect the activity vector, extract."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graphiti_session_tracking.activity import ActivityDetector
from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.tools import Classification, UnifiedToolClassifier
from graphiti_session_tracking.tools.classifier import Fits
from graphiti_session_tracking.transcripts import Session, ToolCall

from .llm_summarizer import EnhancedSessionSummarizer
from .model import EnhancedSessionSummary, ToolUse
from .offline import extract_summary
from .redaction import redact_summary


async def summarize_session(
    session: Session,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
    redactor: Redactor | None = None,
) -> EnhancedSessionSummary:
    """The session's summary with its activity vector.

    Without a classifier, tools are placed by heuristics only (no LLM, no cache file); pass one to
    share its cache and LLM across sessions. Without a summarizer the summary is the offline one.
    """
    classifier = classifier or UnifiedToolClassifier(None, persist=False)
    meter = summarizer.meter if summarizer is not None else None
    if meter is not None:
        meter.start_session()  # the budget and the counts are per session, classification included
    notes: list[str] = []
    if summarizer is not None and meter is not None:  # the summary matters more than classifying tools
        from graphiti_session_tracking.llm import estimate_tokens

        calls, tokens = meter.session_room()
        # Classification gets what the summary leaves (at most a third of the budget); a request
        # that cannot fit in that is not made, and the heuristics place those tools.
        held_tokens = 0
        if tokens is not None:
            held_tokens = min(tokens, max(min(8_000, tokens * 2 // 3), summarizer.wanted_tokens(session)))
        room = None if tokens is None else tokens - held_tokens

        def fits(messages: list[Any]) -> bool:
            return room is None or sum(estimate_tokens(m.content) for m in messages) <= room

        not_sent = classifier.stats.not_sent
        with meter.holding_back(1 if calls is not None else 0, held_tokens):
            signals, kinds = await _classify(classifier, session.tool_calls, calls is None or calls > 1, fits)
        if classifier.stats.not_sent > not_sent:
            notes.append(
                f"LLM budget ({meter.describe()}): tool classification not sent, as the summary needs "
                f"{held_tokens} of the {tokens} input tokens left; tools placed by heuristics"
            )
    else:
        signals, kinds = await _classify(classifier, session.tool_calls)
    vector = ActivityDetector().detect(session, signals)
    offline = extract_summary(session)
    offline = offline.model_copy(
        update={
            "activity_vector": vector,
            "tools_used": _tool_uses(kinds) or None,
            "notes": [*(offline.notes or []), *notes] or None,
        }
    )
    summary = offline if summarizer is None else await summarizer.summarize(session, offline)
    if meter is not None:
        calls, tokens_in, tokens_out = meter.session_usage()
        summary = summary.model_copy(
            update={"llm_calls": calls, "llm_input_tokens": tokens_in, "llm_output_tokens": tokens_out}
        )
    # Secrets never reach the graph: every text of the summary is redacted (default rules unless
    # a configured redactor is given).
    return redact_summary(summary, redactor or Redactor())


# Calls classified at a time: a classification costs about 1.5 KB, so a session of 50,000 calls
# holds at most this many, not all (only a session this long asks the LLM once per part).
CLASSIFY_CHUNK = 10_000


@dataclass(frozen=True, slots=True)
class _Signals:
    """One call's activity signals, shared by every call that has the same ones."""

    activity_signals: dict[str, float]


async def _classify(
    classifier: UnifiedToolClassifier, calls: list[ToolCall], use_llm: bool = True, fits: Fits | None = None
) -> tuple[list[_Signals], dict[str, Counter[tuple[str, str]]]]:
    """Per call (in order) its activity signals, and per tool the (intent, domain) counts."""
    signals: list[_Signals] = []
    shared: dict[tuple[Any, ...], _Signals] = {}
    kinds: dict[str, Counter[tuple[str, str]]] = {}
    for start in range(0, len(calls), CLASSIFY_CHUNK):
        chunk = await classifier.classify_session(
            calls[start : start + CLASSIFY_CHUNK], use_llm=use_llm, fits=fits
        )
        for item in chunk:
            key = tuple(item.activity_signals.items())  # same order, so sums are bit-for-bit equal
            holder = shared.get(key)
            if holder is None:
                holder = shared[key] = _Signals(dict(item.activity_signals))
            signals.append(holder)
            kinds.setdefault(item.tool_name, Counter())[(item.intent.value, item.domain.value)] += 1
    return signals, kinds


def tools_used(classifications: Iterable[Classification]) -> list[ToolUse]:
    """Each tool once, with its call count and its most frequent intent and domain."""
    by_tool: dict[str, Counter[tuple[str, str]]] = {}
    for item in classifications:
        by_tool.setdefault(item.tool_name, Counter())[(item.intent.value, item.domain.value)] += 1
    return _tool_uses(by_tool)


def _tool_uses(by_tool: dict[str, Counter[tuple[str, str]]]) -> list[ToolUse]:
    uses = []
    for name, kinds in sorted(by_tool.items()):
        (intent, domain), _ = kinds.most_common(1)[0]
        uses.append(ToolUse(name=name, calls=sum(kinds.values()), intent=intent, domain=domain))
    return uses
