"""Claude Code transcripts: the JSONL reader and the Session / Message / ToolCall model."""

from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .reader import TranscriptNotFoundError, read_transcript

__all__ = [
    "Message",
    "Problem",
    "Session",
    "TokenUsage",
    "ToolCall",
    "ToolResult",
    "TranscriptNotFoundError",
    "read_transcript",
]
