"""Claude Code transcripts: the JSONL reader and the Session / Message / ToolCall model."""

from .kinds import FILE_CHANGING, ToolKind
from .model import Message, Problem, Session, TokenUsage, ToolCall, ToolResult
from .reader import TranscriptNotFoundError, read_transcript
from .spill import TranscriptChangedError

__all__ = [
    "FILE_CHANGING",
    "Message",
    "Problem",
    "Session",
    "TokenUsage",
    "ToolCall",
    "ToolKind",
    "ToolResult",
    "TranscriptChangedError",
    "TranscriptNotFoundError",
    "read_transcript",
]
