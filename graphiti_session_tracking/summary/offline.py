"""The offline extractor: the parts of a summary that the transcript states outright, no LLM."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta

from graphiti_session_tracking.transcripts import Message, Session

from .commits import extract_commits
from .config_changes import extract_config_changes
from .decisions import extract_decisions
from .decisions.plans import plan_request
from .errors import extract_errors_resolved, forget_judged
from .errors.lines import error_lines
from .files import relative_path, written_file
from .model import EnhancedSessionSummary, Outcome
from .test_runs import extract_test_results
from .todos import extract_tasks
from .verdicts import review_verdicts

_OBJECTIVE_LIMIT = 500
IDLE_GAP = timedelta(minutes=30)  # a longer pause between messages is not session time


def files_modified(session: Session) -> list[str]:
    """Files written by the session, relative to its project, in first-write order, once each."""
    seen: dict[str, None] = {}
    for call in session.tool_calls:
        path = written_file(call)
        if path is not None:
            seen.setdefault(relative_path(path, session.project_root), None)
    return list(seen)


# Text Claude Code puts in the user role that a person did not type as a request: shell-mode
# input and output (`!cmd`), hook output, reminders, a compacted conversation's recap.
_WRAPPER = re.compile(
    r"^\s*(?:<(?:bash-input|bash-stdout|bash-stderr|local-command-stdout|local-command-stderr|"
    r"user-memory-input|session-start-hook|user-prompt-submit-hook|command-message)\b"
    r"|This session is being continued from a previous conversation)",
    re.IGNORECASE,
)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL | re.IGNORECASE)
# A bare go-ahead says nothing about what the session is for.
_GO_AHEAD = re.compile(
    r"^(?:please\s+)?(?:continue|go on|go ahead|proceed|keep going|carry on|resume|next|yes|yep|y|"
    r"ok|okay|sure|do it|sounds good|lgtm)(?:\s+please)?[.!]*$",
    re.IGNORECASE,
)
# Claude Code writes a slash command as the message itself: its tags open it (`<command-message>`
# may come first). A person pasting such tags into a request gives no command.
_SLASH = re.compile(
    r"\s*(?:<command-message>.*?</command-message>\s*)?"
    r"<command-name>\s*(/?[^<\s]+)\s*</command-name>(?:.*?<command-args>(.*?)</command-args>)?",
    re.DOTALL,
)
# Slash commands that run the tool itself rather than ask for work.
_HARNESS_COMMANDS = frozenset(
    [
        "/clear",
        "/compact",
        "/model",
        "/cost",
        "/help",
        "/exit",
        "/quit",
        "/resume",
        "/status",
        "/config",
        "/login",
        "/logout",
        "/doctor",
        "/memory",
        "/permissions",
        "/hooks",
        "/mcp",
        "/agents",
        "/bug",
        "/vim",
        "/theme",
        "/terminal-setup",
        "/usage",
        "/context",
        "/export",
        "/add-dir",
        "/ide",
        "/release-notes",
        "/upgrade",
        "/privacy-settings",
        "/statusline",
        "/rewind",
    ]
)


def objective(session: Session) -> str:
    """What the session was for: the first request a person gave, skipping harness wrappers
    (shell mode, hooks, reminders, a compaction recap) and a bare "continue". A slash command that
    asks for work counts with its arguments, in its turn; one without arguments only when nothing
    else was asked, with the first sentence of the prompt it expands to. Else Claude Code's own
    title for the conversation (its `summary` record); else empty, which beats a made-up objective."""
    thread = [m for m in _main_thread(session) if m.role == "user"]
    bare = ""  # a work command given without arguments: what it asks for, if nothing else
    for index, message in enumerate(thread):
        found = _SLASH.match(message.text[:20_000])
        if found:
            command = found.group(1) if found.group(1).startswith("/") else "/" + found.group(1)
            if command in _HARNESS_COMMANDS:
                continue
            arguments = " ".join((found.group(2) or "").split())
            if arguments:
                return _cut(_link_texts(f"{command} {arguments}"))
            bare = bare or _expanded(command, thread[index + 1 : index + 2])
        elif message.is_human:
            # The start is enough for a 500-character objective; a pasted 50 MB log is not read.
            text = " ".join(_without_paste(_request(_REMINDER.sub(" ", message.text[:20_000]))).split())
            if text and not _WRAPPER.match(text) and not _GO_AHEAD.match(text):
                return _cut(_link_texts(text))
    if bare:
        return bare
    return _cut(" ".join(session.summaries[0].split())) if session.summaries else ""


# A line of program output pasted into a request: a log's timestamp or `[Tag]`, a bullet a tool
# prints, a path or a file position, a stack frame, a line that opens with an error's name.
_PASTED_LINE = re.compile(
    r"^\s*(?:\[[^\]\n]{1,40}\]|\d{4}[-/]\d\d[-/]\d\d|\d\d:\d\d:\d\d|[•⨯✗✓✔✖│├└]|at \S+[.(]|"
    r"[A-Za-z]:\\|[~.]?/\S+/|\S+\.\w{1,5}:\d+|\$ |>\s|(?:npm ERR!|error|fatal|warning|stderr|stdout)\b|"
    r"[A-Z]\w*(?:Error|Exception)\b|(?:ERROR|WARN|INFO|DEBUG)\b)",
)
# Where pasted output starts on the request's own first line: a timestamp or `[Tag]` after a space,
# or a gap of two spaces after a sentence.
_PASTE_STARTS = re.compile(r"\s\[(?:\d\d:\d\d|[A-Z][\w.]*\])|(?<=[.?!:])\s{2,}\S")


def _without_paste(text: str) -> str:
    """A request that goes on into a long pasted log, as the person's words before it and the log's
    failing line: "I got this when running Codex (pasted: error: invalid value 'network-only' for
    '--sandbox')". The log took the whole objective. Text that fits, that is not mostly pasted
    output (three lines or more after the first), or that opens with the paste is left as it is."""
    lines = text.splitlines()
    pasted = [i for i, line in enumerate(lines[1:], 1) if _PASTED_LINE.match(line)]
    if len(" ".join(text.split())) <= _OBJECTIVE_LIMIT or len(pasted) < 3:
        return text
    if len(pasted) * 2 < sum(1 for line in lines[1:] if line.strip()):
        return text
    first = lines[0]
    start = _PASTE_STARTS.search(first)
    head = first[: start.start()] if start else first
    if not head.strip() or _PASTED_LINE.match(head):
        return text  # the request opens with the paste: what was asked is somewhere after it
    log = "\n".join([first[start.start() :] if start else "", *lines[1:]])
    said = error_lines(log)[:1]
    return " ".join([head.strip(), *(f"(pasted: {line})" for line in said)])


def _expanded(command: str, following: list[Message]) -> str:
    """A bare command with the first sentence of the prompt it expanded to (the next user-role
    message, which Claude Code writes as meta), e.g. `/init: Please analyze this codebase …`."""
    if not following or not following[0].is_meta or _SLASH.match(following[0].text[:2_000]):
        return command
    prompt = " ".join(following[0].text[:2_000].split())
    sentence = re.match(r"(.{20,300}?[.!?])(?:\s|$)", prompt)
    return _cut(f"{command}: {sentence.group(1)}") if sentence else command


# A Markdown link reads as its text: `[#10808](https://…/pull/10808)` is "#10808" to a person.
_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*<?(?:https?|file)://[^)\s]*>?\s*\)")


def _link_texts(text: str) -> str:
    return _LINK.sub(lambda m: m.group(1), text)


# A prompt template's slot for what the person typed (Spec Kit's commands: `## User Input`, then
# their words in a fenced block, then the template's own instructions).
_USER_INPUT = re.compile(r"^\s*#{1,6}\s*User Input\s*\n\s*```[\w-]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def _request(text: str) -> str:
    """The request a wrapper carries: an approved plan's title and purpose, or the person's input
    in a prompt template; any other text as it is. An empty template slot leaves the template."""
    plan = plan_request(text)
    if plan is not None:
        return plan
    given = _USER_INPUT.match(text)
    return given.group(1) if given and given.group(1).strip() else text


def _main_thread(session: Session) -> list[Message]:
    """The messages of the conversation itself; for a sub-agent transcript read on its own (an
    older `agent-*.jsonl` whose parent is gone), all of them: the task it was given is its request."""
    main = [m for m in session.messages if not m.is_sidechain]
    return main or list(session.messages)


def _cut(text: str) -> str:
    return text if len(text) <= _OBJECTIVE_LIMIT else text[: _OBJECTIVE_LIMIT - 1].rstrip() + "…"


def active_minutes(session: Session) -> int | None:
    """Minutes of activity: the time between consecutive messages, leaving out every pause
    longer than `IDLE_GAP` (a night, a lunch), which the wall-clock span would count."""
    times = sorted(m.timestamp for m in session.messages if m.timestamp is not None)
    if len(times) < 2:
        return None
    active = sum(
        (gap for gap in (b - a for a, b in itertools.pairwise(times)) if gap <= IDLE_GAP), timedelta()
    )
    return int(active.total_seconds() // 60)


def outcome(session: Session) -> Outcome:
    """How the session ended: the last word is the assistant's and its last tool call worked."""
    main = [m for m in _main_thread(session) if not m.is_meta]
    if not main:
        return "abandoned"
    alone = all(m.is_sidechain for m in session.messages)  # a sub-agent transcript on its own
    last_calls = [c for c in session.tool_calls if alone or not c.is_sidechain]
    if last_calls and last_calls[-1].result is None:
        return "in_progress"
    if main[-1].role == "assistant":
        return "completed"
    return "in_progress"


def extract_summary(session: Session) -> EnhancedSessionSummary:
    """A summary built from the transcript's own facts."""
    forget_judged()
    duration = active_minutes(session)
    mcp = sorted({c.name for c in session.tool_calls if c.name.startswith("mcp__")})
    completed, next_steps = extract_tasks(session)
    completed += [v for v in review_verdicts(session) if v not in completed]
    written = files_modified(session)
    return EnhancedSessionSummary(
        session_id=session.session_id,
        project_path=session.project_root,
        git_branch=session.git_branch,
        agent=session.agent,
        agent_version=session.version,
        started_at=session.started_at,
        ended_at=session.ended_at,
        session_file=session.source_file,
        objective=objective(session),
        outcome=outcome(session),
        completed_tasks=completed or None,
        next_steps=next_steps or None,
        key_decisions=extract_decisions(session) or None,
        errors_resolved=extract_errors_resolved(session) or None,
        config_changes=extract_config_changes(session) or None,
        test_results=extract_test_results(session),
        files_modified=written or None,
        mcp_tools_used=mcp or None,
        commits=extract_commits(session, session.project_root, written) or None,
        message_count=session.user_message_count + session.assistant_message_count,
        duration_minutes=duration,
    )
