"""The session as a compact narrative for the LLM: tool calls collapsed, file contents left out.

Collapsing follows IDEA_session_recap.md: consequential tools (Write, Edit, Bash, TodoWrite, Task)
keep what changed, observational ones (Read, Grep, Glob, LS) keep only what was looked at, and
tool results are reduced to success or their failing lines. People's and the assistant's words, its
extended thinking, questions to the user with the answers, plans with their approval and
sub-agents' reports pass through (cut when very long); each line has a priority, so that a budget
cuts lookups first and people's words and failures last (`fit`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from graphiti_session_tracking.transcripts import Message, Session, ToolCall, ToolKind

from .errors.commands import reads_files_only
from .errors.verdict import failure_lines, only_looks
from .files import relative_path

_TEXT_LIMIT = 3_000  # a person's or the assistant's words, before a budget cuts them
_THINKING_LIMIT = 1_500
_EVIDENCE_LIMIT = 1_200  # failing lines of a tool's output, a question and its answer, a sub-agent's report
_SNIPPET = 80
# A line of tool output that says something failed (kept as evidence; also from commands that
# exit 0: a script printing errors, a background process, a curl body).
_FAILING = re.compile(
    r"(?i)\b(?:error|errors|fail(?:ed|ure|ing)?|exception|traceback|fatal|panic|denied|refused|cannot|can't|"
    r"unable|not found|no such|no module named|timed out|timeout|invalid|missing|undefined|unexpected|"
    r"conflict|abort(?:ed)?|rejected|too many|not enough|mismatch\w*|not assignable|requires|"
    r"unrecognized|unknown|violat\w*|in use|eaddrinuse|permission)\b"
    r"|^E\s|^\s*\^|\S+\.[A-Za-z]{1,5}:\d+(?::\d+)?:\s|\b[45]\d\d\b (?:bad|not|internal|unauthori|forbidden|service|gateway)"
)
_EXIT_LINE = re.compile(r"(?i)^exit code -?\d+$")
_USER_SAID = re.compile(r"(?i)\bthe user said:\s*\S")
# A background task's report that it failed: as telling as a failed call.
_REPORTS_FAILURE = re.compile(r"(?i)<status>\s*(?:failed|error)|\bfailed with exit code [1-9]")
_ASKING = frozenset({ToolKind.QUESTION, ToolKind.PLAN})
_LOOKUP = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.WEB, ToolKind.TODO})


@dataclass(frozen=True)
class ContentLine:
    """One line of the narrative, the index of the message it comes from, and what it is worth
    when the narrative must be cut to a budget: ESSENTIAL (people's words, questions and their
    answers, failures with their failing lines) is kept longest, then USEFUL (the assistant's words
    and thinking, sub-agents' reports, errors a command printed while succeeding), then ACTION (a
    tool call that succeeded: the files and commands are in the summary anyway); LOOKUP (reads,
    searches) is left out first."""

    message_index: int
    text: str
    priority: int = 2


ESSENTIAL, USEFUL, ACTION, LOOKUP = 1, 2, 3, 4


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
    telling = telling or next((ln for ln in reversed(lines) if _FAILING.search(ln)), None)
    return f" → FAILED: {_short(telling or (lines[-1] if lines else 'error'), 160)}"


def collapse_tool_call(call: ToolCall, cwd: str | None) -> str:
    """One line saying what a tool call did."""
    args = call.input

    def path() -> str:
        raw = args.get("file_path") or args.get("notebook_path") or args.get("path") or ""
        return relative_path(str(raw), cwd) if raw else "?"

    name, kind = call.name, call.kind
    if kind is ToolKind.READ:
        text = f"Read {path()}"
    elif kind is ToolKind.WRITE:
        content = str(call.full_input.get("content", ""))  # the whole file, to count its lines
        text = f"Wrote {path()} ({content.count(chr(10)) + 1 if content else 0} lines)"
    elif kind is ToolKind.EDIT and "notebook_path" in args:
        text = f"Edited notebook {path()}"
    elif kind is ToolKind.EDIT and "edits" in args:
        edits = args.get("edits")
        text = f"Edited {path()} ({len(edits) if isinstance(edits, list) else '?'} changes)"
    elif kind is ToolKind.EDIT:
        text = f"Edited {path()}: replaced '{_short(str(args.get('old_string', '')), 60)}' with '{_short(str(args.get('new_string', '')), 60)}'"
    elif kind is ToolKind.COMMAND:
        text = f"Ran `{_short(str(args.get('command', '')), 160)}`"
        if call.result is not None and not call.result.is_error and call.result.text.strip():
            # git prints its `hint:` lines after the output that says what happened
            last = [ln for ln in call.result.text.splitlines() if ln.strip() and not ln.startswith("hint:")][
                -1:
            ]
            text += f" → {_short(last[0], 120)}" if last else ""
    elif kind is ToolKind.SEARCH and "pattern" in args:
        text = f"Searched for {_short(str(args.get('pattern', '')), 60)!r}"
    elif kind is ToolKind.SEARCH:
        text = f"Listed {path()}"
    elif kind is ToolKind.TODO and isinstance(args.get("todos"), list):
        todos = args.get("todos")
        items = [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []
        text = "Updated todos: " + "; ".join(
            f"[{t.get('status', '?')}] {_short(str(t.get('content', '')), 60)}" for t in items
        )
    elif kind is ToolKind.SUBAGENT:
        text = f"Delegated to a sub-agent: {_short(str(args.get('description') or args.get('prompt') or ''), 100)}"
    elif kind is ToolKind.WEB:
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
            ContentLine(index, text, priority)
            for text, priority in _message_lines(message, session.project_root, keep, condensed or {})
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
) -> list[tuple[str, int]]:
    prefix = "(sub-agent) " if message.is_sidechain else ""
    out: list[tuple[str, int]] = []

    def text_of(text: str, limit: int = _TEXT_LIMIT) -> str:
        text = text.strip()
        return condensed.get(text) or salient_cut(text, limit)

    if message.role == "user":
        if message.is_human and keep.user_messages is not False:
            out.append((f"{prefix}User: {text_of(message.text)}", ESSENTIAL))
        elif message.is_meta and message.text.strip() and keep.tool_calls:
            # what the harness said in the user's place: a background task's report, a hook's
            # feedback; evidence (a background build failing), not a person's words
            worth = ESSENTIAL if _REPORTS_FAILURE.search(message.text) else USEFUL
            out.append((f"{prefix}(harness) {text_of(message.text)}", worth))
        return out
    if message.thinking.strip() and keep.agent_messages is not False:
        out.append((f"{prefix}Assistant (thinking): {text_of(message.thinking, _THINKING_LIMIT)}", USEFUL))
    if message.text.strip() and keep.agent_messages is not False:
        out.append((f"{prefix}Assistant: {text_of(message.text)}", USEFUL))
    for call in message.tool_calls:
        if keep.tool_calls:
            out.extend((f"{prefix}{text}", priority) for text, priority in _call_lines(call, cwd))
        if keep.tool_content is not False and call.result is not None and call.result.text.strip():
            out.append((f"{prefix}    result: {text_of(call.result.text)}", USEFUL))
    return out


def _call_lines(call: ToolCall, cwd: str | None) -> list[tuple[str, int]]:
    """A tool call as evidence: what it did; a question with its options and the user's answer; a
    plan and whether it was approved; a sub-agent's report; the failing lines of its output."""
    result = call.result.text.strip() if call.result is not None else ""
    if call.kind in _ASKING:
        asked = call.full_input.get("plan") or call.full_input.get("questions") or call.input
        shown = asked if isinstance(asked, str) else json.dumps(asked, ensure_ascii=False)
        verb = "Proposed a plan" if call.kind is ToolKind.PLAN else "Asked the user"
        lines = [(f"  - {verb}: {salient_cut(' '.join(shown.split()), _TEXT_LIMIT)}", ESSENTIAL)]
        if result:
            lines.append(
                (f"    → the user's answer: {_cut(' '.join(result.split()), _EVIDENCE_LIMIT)}", ESSENTIAL)
            )
        return lines
    line = collapse_tool_call(call, cwd)
    failed = call.result is not None and call.result.is_error
    work = failed and _work_failed(call)
    lookup = _is_lookup(call)
    lines = [(f"  - {line}", ESSENTIAL if work else LOOKUP if lookup else ACTION)]
    if _USER_SAID.search(result):  # a refused call with the user's words: a person speaking
        lines.append((f"    → the user: {_cut(' '.join(result.split()), _EVIDENCE_LIMIT)}", ESSENTIAL))
    elif call.kind is ToolKind.SUBAGENT and result:
        lines.append((f"    → sub-agent's report: {_cut(' '.join(result.split()), _EVIDENCE_LIMIT)}", USEFUL))
    elif result and call.kind is not ToolKind.READ:
        failing = failing_lines(result, everything=failed)
        if failing:  # a log read back, a curl body: a lookup's output is cut first, not left out
            worth = ESSENTIAL if work else ACTION if failed else LOOKUP if lookup else USEFUL
            lines.append((f"    output: {failing}", worth))
    return lines


def _work_failed(call: ToolCall) -> bool:
    """A failed call that is the work failing (also a lookup: `sudo cat` refused, a `grep` that
    timed out), not a refusal, a command the shell could not parse or an editing hiccup ("String
    to replace not found"): those are no record's evidence, so a budget cuts them like a call
    that succeeded."""
    if call.kind is ToolKind.COMMAND:
        return failure_lines(call) is not None or only_looks(call)
    if call.kind in (ToolKind.READ, ToolKind.EDIT, ToolKind.WRITE):
        return bool(failure_lines(call))  # only the file system refusing (EACCES, a full disk)
    return True


def _is_lookup(call: ToolCall) -> bool:
    """A read or search, also through the shell (`sed -n`, `cat`, `rg`): cut first, with its
    output (code it listed reads as failures: `if (error) {`)."""
    return call.kind in _LOOKUP or reads_files_only(call)


def failing_lines(output: str, *, everything: bool = False, limit: int = _EVIDENCE_LIMIT) -> str:
    """The lines of a tool's output that say what failed (` | `-joined), within `limit`; for a
    call that failed and names nothing, its last lines."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip() and not _EXIT_LINE.match(ln.strip())]
    telling = [ln for ln in lines if _FAILING.search(ln)]
    if everything and len(telling) < 2:
        telling = lines[-8:]  # a failure naming itself in no known words: its last lines
    return _cut(" | ".join(_unique_lines(telling)), limit) if telling else ""


def _unique_lines(lines: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for line in lines:
        seen.setdefault(line[:300], None)
    return list(seen)


def _cut(text: str, limit: int = _TEXT_LIMIT) -> str:
    """Head and tail of a long text: where a message states its request and where it concludes."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    return text[:head] + " …[cut]… " + text[-(limit - head) :]


# What a reader of a long session looks for: a choice and its reason, a failure, a named thing.
_CHOICE = re.compile(
    r"(?i)\b(?:instead of|rather than|decid\w*|chose|choose|chosen|option|approach|prefer\w*|go with|"
    r"going with|trade-?off|because|so that|recommend\w*|plan|alternative|switch\w* to|keep|drop|revert\w*|"
    r"should|won['’]t|will not|let['’]s|we['’]ll|I['’]ll)\b"  # Codex writes "I’ll"
)
_NAMED = re.compile(r"`[^`]{2,80}`|\b[\w.-]+\.[a-z]{1,5}\b|--[\w-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`\-*\d])|\n+")


def salience(text: str) -> float:
    """How much a text holds of what the records are made of (choices, failures, names)."""
    return (
        2.0 * len(_CHOICE.findall(text)) + 2.0 * len(_FAILING.findall(text)) + 0.5 * len(_NAMED.findall(text))
    ) / (1 + len(text) / 400)


def salient_cut(text: str, limit: int) -> str:
    """`text` within `limit`: its first sentence, then its sentences that say the most
    (`salience`), in their order — not a blind head and tail, which drops the choice said in the
    middle of a long answer."""
    if len(text) <= limit:
        return text
    sentences = [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]
    if len(sentences) < 3:
        return _cut(text, limit)
    chosen = {0}
    used = len(sentences[0])
    for index in sorted(range(1, len(sentences)), key=lambda i: -salience(sentences[i])):
        if salience(sentences[index]) <= 0 or used + len(sentences[index]) + 3 > limit:
            continue
        chosen.add(index)
        used += len(sentences[index]) + 3
    return _cut(" … ".join(sentences[i] for i in sorted(chosen)), limit)


def fit(lines: list[ContentLine], max_chars: int) -> tuple[list[ContentLine], str | None]:
    """The narrative within `max_chars`: lookups left out first, then useful lines cut to what
    they say most (`salient_cut`), then the tool calls that succeeded and say least, then the
    useful lines that say least; essential lines (people's words, questions and answers, failures)
    are shortened last. The note says what."""
    if _size(lines) <= max_chars:
        return lines, None
    steps: list[tuple[str, list[ContentLine]]] = []
    kept = [line for line in lines if line.priority != LOOKUP]
    steps.append(("reads and searches", kept))
    # Long texts cut no shorter than the budget needs: a choice said in the middle of a long
    # answer survives a cut to 1,200 characters more often than one to 400.
    for cap in _SHORTEN_CAPS:
        shortened = [
            replace(ln, text=salient_cut(ln.text, cap)) if ln.priority == USEFUL else ln for ln in kept
        ]
        if _size(shortened) <= max_chars:
            break
    steps.append(("long texts shortened", shortened))
    essential = [ln for ln in shortened if ln.priority == ESSENTIAL]
    room = max_chars - _size(essential)
    useful = _most_telling([ln for ln in shortened if ln.priority == USEFUL], room)
    actions = _most_telling([ln for ln in shortened if ln.priority == ACTION], room - _size(useful))
    chosen = set(map(id, essential + useful + actions))
    steps.append(
        ("the tool calls and assistant texts that say least", [ln for ln in shortened if id(ln) in chosen])
    )
    for what, candidate in steps:
        if _size(candidate) <= max_chars:
            return candidate, f"{len(lines) - len(candidate)} of {len(lines)} lines left out to fit ({what})"
    # The essential lines alone are too long: each cut to what it says most, shorter and shorter,
    # then the lines that say least left out, wherever they are in the session.
    squeezed = steps[-1][1]
    for cap in _SQUEEZE_CAPS:
        squeezed = [replace(ln, text=salient_cut(ln.text, cap)) for ln in squeezed]
        if _size(squeezed) <= max_chars:
            break
    else:
        chosen = set(map(id, _most_telling(squeezed, max_chars)))
        squeezed = [ln for ln in squeezed if id(ln) in chosen]
    return (
        squeezed,
        f"{len(lines) - len(squeezed)} of {len(lines)} lines left out and the rest shortened to fit",
    )


_SHORTEN_CAPS = (1_600, 1_200, 800, 600, 400)  # the last is the cap the selection works with
_SQUEEZE_CAPS = (800, 500, 300, 200)


def _size(lines: list[ContentLine]) -> int:
    return sum(len(line.text) + 8 for line in lines)


def _most_telling(lines: list[ContentLine], room: int) -> list[ContentLine]:
    """The lines that say most (`salience`; the later of two alike) that fit in `room`."""
    ranked = sorted(range(len(lines)), key=lambda i: -(salience(lines[i].text) + i / max(1, len(lines))))
    kept: list[ContentLine] = []
    for index in ranked:
        if room - len(lines[index].text) - 8 >= 0:
            kept.append(lines[index])
            room -= len(lines[index].text) + 8
    return kept


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
