"""The parsed session: messages, tool calls linked to their results, metadata, and problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Problem:
    """Something wrong in the input, with where it is; reading goes on past it."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


@dataclass
class ToolResult:
    text: str
    is_error: bool
    timestamp: datetime | None
    structured: dict[str, Any] | None = None


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]
    timestamp: datetime | None
    line: int
    is_sidechain: bool = False
    from_subagent: bool = False  # read from a sub-agent transcript beside the session
    result: ToolResult | None = None

    @property
    def succeeded(self) -> bool:
        """A call counts as done only when its result came back without an error."""
        return self.result is not None and not self.result.is_error


@dataclass
class TokenUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def add(self, other: TokenUsage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens

    @property
    def total(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )


@dataclass
class Message:
    """One user or assistant turn. An API response split over several lines is one Message."""

    uuid: str
    role: str
    text: str
    timestamp: datetime | None
    line: int
    is_sidechain: bool = False
    is_meta: bool = False
    from_subagent: bool = False
    message_id: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[str] = field(default_factory=list)
    usage: TokenUsage | None = None

    @property
    def is_human(self) -> bool:
        """A real user request: typed text, not only tool results or harness messages."""
        return self.role == "user" and not self.is_meta and bool(self.text.strip())


@dataclass
class Session:
    session_id: str
    source_file: str
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    record_counts: dict[str, int] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    problems: list[Problem] = field(default_factory=list)
    subagent_files: list[str] = field(default_factory=list)
    start_offset: int = 0
    end_offset: int = 0
    lines_read: int = 0

    @property
    def project_path(self) -> str | None:
        return self.cwd

    @property
    def user_message_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "user" and not m.is_meta)

    @property
    def assistant_message_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "assistant")
