"""Session summaries: the EnhancedSessionSummary schema and the extractors that fill it."""

from .model import ConfigChange, DecisionRecord, EnhancedSessionSummary, ErrorResolution, TestSummary
from .offline import extract_summary
from .summarize import summarize_session

__all__ = [
    "ConfigChange",
    "DecisionRecord",
    "EnhancedSessionSummary",
    "ErrorResolution",
    "TestSummary",
    "extract_summary",
    "summarize_session",
]
