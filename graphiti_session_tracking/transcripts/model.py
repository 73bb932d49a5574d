"""The parsed session: messages, tool calls linked to their results, metadata, and problems."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, ClassVar

from .claude_tools import claude_tool_kind
from .kinds import FILE_CHANGING, ToolKind
from .spill import Spill, call_input, result_structured, result_text


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in the input, with where it is; reading goes on past it."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


class ToolResult:
    """A tool's answer: `is_error`, its text (head and tail kept) and Claude Code's `toolUseResult`.

    Read from a transcript, a long text and the `toolUseResult` stay in the file and are read
    again on first use (`spill.py`), so a session's memory does not follow its tools' output.
    """

    __slots__ = ("_lazy_structured", "_spill", "_structured", "_text", "is_error", "timestamp")

    def __init__(
        self,
        text: str,
        is_error: bool,
        timestamp: datetime | None,
        structured: dict[str, Any] | None = None,
    ) -> None:
        self._text: str | None = text
        self.is_error = is_error
        self.timestamp = timestamp
        self._structured = structured
        self._spill: Spill | None = None
        self._lazy_structured = False

    @classmethod
    def spilled(
        cls,
        spill: Spill,
        *,
        is_error: bool,
        timestamp: datetime | None,
        text: str | None,
        has_structured: bool,
    ) -> ToolResult:
        """A result whose text (when `text` is None) and `toolUseResult` are read from `spill`."""
        result = cls("", is_error, timestamp)
        result._text = text
        result._spill = spill
        result._lazy_structured = has_structured
        return result

    @property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        assert self._spill is not None
        return result_text(self._spill)

    @property
    def structured(self) -> dict[str, Any] | None:
        if self._lazy_structured and self._spill is not None:
            return result_structured(self._spill)
        return self._structured

    def __getstate__(self) -> tuple[Any, ...]:
        return (
            self._text,
            self.is_error,
            self.timestamp,
            self._structured,
            self._spill,
            self._lazy_structured,
        )

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self._text, self.is_error, self.timestamp, self._structured, self._spill, self._lazy_structured) = (
            state
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolResult):
            return NotImplemented
        return (self.text, self.is_error, self.timestamp, self.structured) == (
            other.text,
            other.is_error,
            other.timestamp,
            other.structured,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = self._text if self._text is not None else f"<in {self._spill}>"
        return f"ToolResult(text={shown!r:.80}, is_error={self.is_error})"


class ToolCall:
    """One tool use, linked to its result.

    `input` holds every string up to INPUT_PREVIEW_LIMIT characters (a Bash `command` up to
    INPUT_TEXT_LIMIT), longer ones cut with `…[N more]`; `full_input` is the input as written,
    read from the transcript when something was cut (a Write's whole file, an Edit's old text).
    """

    __slots__ = (
        "_spill",
        "from_subagent",
        "id",
        "input",
        "is_sidechain",
        "kind",
        "line",
        "name",
        "result",
        "timestamp",
    )

    def __init__(
        self,
        id: str,
        name: str,
        input: dict[str, Any],
        timestamp: datetime | None,
        line: int,
        is_sidechain: bool = False,
        from_subagent: bool = False,  # read from a sub-agent transcript beside the session
        result: ToolResult | None = None,
        *,
        spill: Spill | None = None,  # where the whole input is, when `input` was cut
        kind: ToolKind | None = None,  # what it does; its reader says (else a Claude Code name's)
    ) -> None:
        self.id = id
        self.name = name
        self.kind = kind if kind is not None else claude_tool_kind(name)
        self.input = input
        self.timestamp = timestamp
        self.line = line
        self.is_sidechain = is_sidechain
        self.from_subagent = from_subagent
        self.result = result
        self._spill = spill

    @property
    def full_input(self) -> dict[str, Any]:
        """The input with nothing cut (read from the transcript when `input` is a preview)."""
        return self.input if self._spill is None else call_input(self._spill)

    @property
    def input_cut(self) -> bool:
        return self._spill is not None

    @property
    def unsandboxed(self) -> bool:
        """Run outside the agent's sandbox (Claude Code's `dangerouslyDisableSandbox`; a Codex
        command with escalated permissions, which its reader writes as that key): what failed
        inside it for want of a permission or the network may pass here with nothing changed."""
        return self.input.get("dangerouslyDisableSandbox") is True

    @property
    def succeeded(self) -> bool:
        """A call counts as done only when its result came back without an error."""
        return self.result is not None and not self.result.is_error

    # What pickling keeps, in order (the slots, `_spill` last: it is left out of equality).
    _STATE: ClassVar[tuple[str, ...]] = (
        "id",
        "name",
        "kind",
        "input",
        "timestamp",
        "line",
        "is_sidechain",
        "from_subagent",
        "result",
        "_spill",
    )

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._STATE)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._STATE, state, strict=True):
            setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self.__getstate__()[:-1] == other.__getstate__()[:-1]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToolCall(id={self.id!r}, name={self.name!r}, line={self.line}, result={self.result!r})"


@dataclass(slots=True)
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


def git_root(folder: str) -> str | None:
    """The nearest folder at or above `folder` that holds a `.git`, if any."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


@dataclass(slots=True)
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
    # The assistant's extended-thinking text: its reasoning, where choices are often worded.
    thinking: str = ""

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
    # Which coding agent wrote the transcript ("claude-code", "codex", "gemini-cli", "opencode") and
    # its version as the transcript gives it.
    agent: str = "claude-code"
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
        return self.project_root

    @cached_property
    def project_root(self) -> str | None:
        """The project the session worked on, so that one repository is one project whatever
        folder Claude Code was started in: the git repository holding that folder, or, when it
        was started above one, the single repository holding every file the session wrote.
        Only this machine's disk can tell; elsewhere (another machine's transcript) the folder."""
        if not self.cwd or not os.path.isdir(self.cwd):
            return self.cwd
        root = git_root(self.cwd)
        if root is not None:
            return root
        written = {
            call.input.get("file_path") or call.input.get("notebook_path")
            for call in self.tool_calls
            if call.kind in FILE_CHANGING
        }
        roots = {git_root(os.path.dirname(p)) for p in written if isinstance(p, str) and os.path.isabs(p)}
        inside = next(iter(roots)) if len(roots) == 1 else None
        if inside is not None and inside.startswith(self.cwd.rstrip("/") + "/"):
            return inside
        return self.cwd

    @property
    def user_message_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "user" and not m.is_meta)

    @property
    def assistant_message_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "assistant")
