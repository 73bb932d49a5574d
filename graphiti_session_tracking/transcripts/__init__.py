"""Claude Code transcripts: the JSONL reader and the Session / Message / ToolCall model."""

from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .reader import TranscriptNotFoundError, read_transcript
from .spill import TranscriptChangedError

__all__ = [
    "Message",
    "Problem",
    "Session",
    "TokenUsage",
    "ToolCall",
    "ToolResult",
    "TranscriptChangedError",
    "TranscriptNotFoundError",
    "read_transcript",
]
