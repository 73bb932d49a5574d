"""Session summaries: the EnhancedSessionSummary schema and the extractors that fill it."""

from .llm_summarizer import EnhancedSessionSummarizer
from .model import (
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
    TestSummary,
    ToolUse,
)
from .offline import extract_summary
from .summarize import summarize_session

__all__ = [
    "ConfigChange",
    "DecisionRecord",
    "EnhancedSessionSummarizer",
    "EnhancedSessionSummary",
    "ErrorResolution",
    "TestSummary",
    "ToolUse",
    "extract_summary",
    "summarize_session",
]
