"""From a parsed session to its summary: classify tools, detect the activity vector, extract."""

from __future__ import annotations

from graphiti_session_tracking.activity import ActivityDetector
from graphiti_session_tracking.tools import UnifiedToolClassifier
from graphiti_session_tracking.transcripts import Session

from .llm_summarizer import EnhancedSessionSummarizer
from .model import EnhancedSessionSummary
from .offline import extract_summary


async def summarize_session(
    session: Session,
    classifier: UnifiedToolClassifier | None = None,
    summarizer: EnhancedSessionSummarizer | None = None,
) -> EnhancedSessionSummary:
    """The session's summary with its activity vector.

    Without a classifier, tools are placed by heuristics only (no LLM, no cache file); pass one to
    share its cache and LLM across sessions. Without a summarizer the summary is the offline one.
    """
    classifier = classifier or UnifiedToolClassifier(None, persist=False)
    classifications = await classifier.classify_session(session.tool_calls)
    vector = ActivityDetector().detect(session, classifications)
    offline = extract_summary(session).model_copy(update={"activity_vector": vector})
    return offline if summarizer is None else await summarizer.summarize(session, offline)
