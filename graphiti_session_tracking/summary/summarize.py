"""From a parsed session to its summary: classify tools, detect the activity vector, extract."""

from __future__ import annotations

from collections import Counter

from graphiti_session_tracking.activity import ActivityDetector
from graphiti_session_tracking.redact import Redactor, redact_summary
from graphiti_session_tracking.tools import Classification, UnifiedToolClassifier
from graphiti_session_tracking.transcripts import Session

from .llm_summarizer import EnhancedSessionSummarizer
from .model import EnhancedSessionSummary, ToolUse
from .offline import extract_summary


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
    classifications = await classifier.classify_session(session.tool_calls)
    vector = ActivityDetector().detect(session, classifications)
    offline = extract_summary(session).model_copy(
        update={"activity_vector": vector, "tools_used": tools_used(classifications) or None}
    )
    summary = offline if summarizer is None else await summarizer.summarize(session, offline)
    # Secrets never reach the graph: every text of the summary is redacted (default rules unless
    # a configured redactor is given).
    return redact_summary(summary, redactor or Redactor())


def tools_used(classifications: list[Classification]) -> list[ToolUse]:
    """Each tool once, with its call count and its most frequent intent and domain."""
    by_tool: dict[str, Counter[tuple[str, str]]] = {}
    for item in classifications:
        by_tool.setdefault(item.tool_name, Counter())[(item.intent.value, item.domain.value)] += 1
    uses = []
    for name, kinds in sorted(by_tool.items()):
        (intent, domain), _ = kinds.most_common(1)[0]
        uses.append(ToolUse(name=name, calls=sum(kinds.values()), intent=intent, domain=domain))
    return uses
