"""The session as a compact narrative for the LLM: tool calls collapsed, file contents left out.

Collapsing follows IDEA_session_recap.md: consequential tools (Write, Edit, Bash, TodoWrite, Task)
keep what changed, observational ones (Read, Grep, Glob, LS) keep only what was looked at, and
tool results are reduced to success or the telling error line. People's and the assistant's words
pass through (cut when very long).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphiti_session_tracking.transcripts import Message, Session, ToolCall

from .files import relative_path

_TEXT_LIMIT = 1_500
_SNIPPET = 80


@dataclass(frozen=True)
class ContentLine:
    """One line of the narrative and the index of the message it comes from."""

    message_index: int
    text: str


def _short(text: str, limit: int = _SNIPPET) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _outcome(call: ToolCall) -> str:
    if call.result is None:
        return " (no result)"
    if not call.result.is_error:
        return ""
    lines = [ln.strip() for ln in call.result.text.splitlines() if ln.strip()]
    telling = next((ln for ln in reversed(lines) if "error" in ln.lower() or "exception" in ln.lower()), None)
    return f" → FAILED: {_short(telling or (lines[0] if lines else 'error'), 160)}"


def collapse_tool_call(call: ToolCall, cwd: str | None) -> str:
    """One line saying what a tool call did."""
    args = call.input

    def path() -> str:
        raw = args.get("file_path") or args.get("notebook_path") or args.get("path") or ""
        return relative_path(str(raw), cwd) if raw else "?"

    name = call.name
    if name == "Read":
        text = f"Read {path()}"
    elif name == "Write":
        content = str(call.full_input.get("content", ""))  # the whole file, to count its lines
        text = f"Wrote {path()} ({content.count(chr(10)) + 1 if content else 0} lines)"
    elif name == "Edit":
        text = f"Edited {path()}: replaced '{_short(str(args.get('old_string', '')), 60)}' with '{_short(str(args.get('new_string', '')), 60)}'"
    elif name == "MultiEdit":
        edits = args.get("edits")
        text = f"Edited {path()} ({len(edits) if isinstance(edits, list) else '?'} changes)"
    elif name == "NotebookEdit":
        text = f"Edited notebook {path()}"
    elif name == "Bash":
        text = f"Ran `{_short(str(args.get('command', '')), 160)}`"
        if call.result is not None and not call.result.is_error and call.result.text.strip():
            # git prints its `hint:` lines after the output that says what happened
            last = [ln for ln in call.result.text.splitlines() if ln.strip() and not ln.startswith("hint:")][
                -1:
            ]
            text += f" → {_short(last[0], 120)}" if last else ""
    elif name in ("Grep", "Glob"):
        text = f"Searched for {_short(str(args.get('pattern', '')), 60)!r}"
    elif name == "LS":
        text = f"Listed {path()}"
    elif name == "TodoWrite":
        todos = args.get("todos")
        items = [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []
        text = "Updated todos: " + "; ".join(
            f"[{t.get('status', '?')}] {_short(str(t.get('content', '')), 60)}" for t in items
        )
    elif name == "Task":
        text = f"Delegated to a sub-agent: {_short(str(args.get('description') or args.get('prompt') or ''), 100)}"
    elif name in ("WebFetch", "WebSearch"):
        text = f"{name}: {_short(str(args.get('url') or args.get('query') or ''), 100)}"
    else:
        keys = ", ".join(f"{k}={_short(str(v), 40)}" for k, v in list(args.items())[:3])
        text = f"Called {name}({keys})"
    return text + _outcome(call)


@dataclass(frozen=True)
class ContentFilter:
    """What of each message category reaches the LLM (config `session_tracking.filter`): True
    kept, False left out, a string (template file or inline prompt) condensed by the LLM first."""

    tool_calls: bool = True
    tool_content: bool | str = False
    user_messages: bool | str = True
    agent_messages: bool | str = True


KEEP_ALL = ContentFilter()


def session_content(
    session: Session, keep: ContentFilter = KEEP_ALL, condensed: Mapping[str, str] | None = None
) -> list[ContentLine]:
    """The narrative of the session, one line per message or tool call, in order; `condensed`
    maps a message's text to the LLM's shorter version of it."""
    lines: list[ContentLine] = []
    for index, message in enumerate(session.messages):
        lines.extend(
            ContentLine(index, text)
            for text in _message_lines(message, session.project_root, keep, condensed or {})
        )
    return lines


def to_condense(session: Session, keep: ContentFilter, longer_than: int) -> list[tuple[str, str, str]]:
    """(category, template, text) of each distinct text the filter asks to be condensed."""
    wanted: dict[str, tuple[str, str, str]] = {}

    def add(category: str, mode: bool | str, text: str) -> None:
        text = text.strip()
        if isinstance(mode, str) and len(text) > longer_than and text not in wanted:
            wanted[text] = (category, mode, text)

    for message in session.messages:
        if message.role == "user" and message.is_human:
            add("user_messages", keep.user_messages, message.text)
        elif message.role != "user":
            add("agent_messages", keep.agent_messages, message.text)
            for call in message.tool_calls:
                if call.result is not None and call.result.text:
                    add("tool_results", keep.tool_content, call.result.text)
    return list(wanted.values())


def _message_lines(
    message: Message, cwd: str | None, keep: ContentFilter, condensed: Mapping[str, str]
) -> list[str]:
    prefix = "(sub-agent) " if message.is_sidechain else ""
    out: list[str] = []

    def text_of(text: str) -> str:
        text = text.strip()
        return condensed.get(text) or _cut(text)

    if message.role == "user":
        if message.is_human and keep.user_messages is not False:
            out.append(f"{prefix}User: {text_of(message.text)}")
        return out
    if message.text.strip() and keep.agent_messages is not False:
        out.append(f"{prefix}Assistant: {text_of(message.text)}")
    for call in message.tool_calls:
        if keep.tool_calls:
            out.append(f"{prefix}  - {collapse_tool_call(call, cwd)}")
        if keep.tool_content is not False and call.result is not None and call.result.text.strip():
            out.append(f"{prefix}    result: {text_of(call.result.text)}")
    return out


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TEXT_LIMIT else text[:_TEXT_LIMIT] + " …[cut]"


def render(lines: list[ContentLine]) -> str:
    return "\n".join(f"[{line.message_index}] {line.text}" for line in lines)


def segments(lines: list[ContentLine], max_chars: int) -> list[list[ContentLine]]:
    """Split the narrative into parts of at most `max_chars`, never inside a message."""
    parts: list[list[ContentLine]] = []
    current: list[ContentLine] = []
    size = 0
    for line in lines:
        length = len(line.text) + 8
        starts_message = not current or current[-1].message_index != line.message_index
        if current and size + length > max_chars and starts_message:
            parts.append(current)
            current, size = [], 0
        current.append(line)
        size += length
    if current:
        parts.append(current)
    return parts
