"""The record of a resolved failure: the failing line, the root cause the assistant stated, the
fix (what changed in between) and the verification (the call that proved it gone)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphiti_session_tracking.tools.bash import SegmentVerdict
from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from .._sentences import Sentence, cut
from ..files import relative_path, written_file
from ..model import ErrorResolution
from .commands import _PASTED, Key, _bare, _command, _is_check, _kind_key, _verdict, parts
from .lines import _CODE, _POSITION, _TIMED_OUT, ERROR_LIMIT, with_task
from .reports import _COUNT
from .verdict import _SYSTEM_ERROR, failure_lines

if TYPE_CHECKING:
    from .walk import _Open, _Run

_FIX_LIMIT = 400
_MAX_FILES_NAMED = 5
_MAX_COMMANDS_NAMED = 2
_ALSO_LIMIT = 300
_CAUSE_WINDOW = 3  # calls after an unresolved failure whose preceding words may state its cause

_ROOT_CAUSE = re.compile(
    r"\bbecause\b|\bcaused by\b|\bthe (?:issue|problem|error|bug|cause|failure) (?:is|was)\b|\broot cause\b|"
    r"\bdue to\b|\bfails? since\b",
    re.IGNORECASE,
)
_HEDGED = re.compile(
    r"\b(?:might|may|maybe|probably|likely|perhaps|possibly|seems?|appears?|could|I think|I suspect|"
    r"I guess|I believe|not sure|unclear|let me|let's|need to check)\b|\?",
    re.IGNORECASE,
)
# "The issue is on line 42." says where, not why.
_ONLY_WHERE = re.compile(
    r"\bthe (?:issue|problem|error|bug|cause|failure) (?:is|was) (?:on|in|at|with) (?:line \d+|\S+)\W*$",
    re.IGNORECASE,
)
_FIX_SENTENCE = re.compile(
    r"\bthe fix\b|\bto fix (?:this|it|that|the)\b|\bfix(?:ed)? (?:this |it |that )?by\b|\bthe solution\b",
    re.IGNORECASE,
)

_CHANGING = frozenset(
    {ToolIntent.CREATE, ToolIntent.MODIFY, ToolIntent.DELETE, ToolIntent.CONFIGURE, ToolIntent.TRANSFORM}
)


def _record(
    session: Session,
    run: _Run,
    failure: _Open,
    success: int,
    texts: dict[str, list[Sentence]],
    verification: str,
) -> ErrorResolution:
    start = _after(failure)
    between = run.calls[start:success]
    # What the assistant said after the failure came back, up to and including the rerun's turn.
    said = [s for call in run.calls[start : success + 1] for s in texts.get(call.id, [])]
    root_cause = _stated_cause(said)
    explanation = next(
        (
            s.text
            for s in said
            if _FIX_SENTENCE.search(s.prose) and not _HEDGED.search(s.prose) and s.text != root_cause
        ),
        "",
    )
    key = _kind_key(failure.failing) if failure.failing is not None else _PASTED
    passing = run.calls[success]
    changed = (
        _left_sandbox(failure.failing, passing)
        or _fix(session, between, key, failure.line)
        or _changed_command(failure.failing, passing)
    )
    fix = ". ".join(part.rstrip(".") for part in (changed, explanation) if part)
    return ErrorResolution(
        error=_error_text(failure),
        root_cause=cut(root_cause, _FIX_LIMIT),
        fix=cut(fix, _FIX_LIMIT),
        verification=verification,
    )


def _after(failure: _Open) -> int:
    """The first call after the failure (for a pasted error, `first` already counts the calls
    before it)."""
    return failure.first + 1 if failure.failing is not None else failure.first


# "I'm using X because …", "I'm checking it now because …", "I'll rerun it since …": why the agent
# acts, not why something failed.
_ACTING = re.compile(
    r"^\W*(?:(?:I|we)(?:'ll|’ll| will)|let me|let's|(?:I|we)(?:'m|’m| am|'re|’re| are) "
    r"(?!getting\b|seeing\b|hitting\b|receiving\b|missing\b)(?:now\s+)?\w+ing\b)",  # "I'm getting a 403 because …" says why
    re.IGNORECASE,
)
# "I've got the root cause.", "Found the issue!", "Root cause:": the cause announced, not said.
_ANNOUNCED = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|now|great|good)\W+)?(?:(?:I(?:'ve|’ve| have)?|we(?:'ve|’ve| have)?)\s+)?"
    r"(?:(?:got|found|identified|spotted|located|see|know)\s+)?(?:here(?:'s|’s| is)\s+)?(?:the\s+)?"
    r"(?:real\s+|actual\s+)?(?:root\s+cause|cause|issue|problem|bug)"
    r"(?:\s+(?:is\s+)?(?:identified|found|clear(?:\s+now)?))?\W*$",
    re.IGNORECASE,
)


def _stated_cause(said: list[Sentence]) -> str:
    """The assistant's first explicit, unhedged explanation of why it failed; else nothing (a
    sentence that only announces one, "I've got the root cause.", or says why the agent acts,
    "I'm using X because …", explains no failure)."""
    return next(
        (
            s.text
            for s in said
            if _ROOT_CAUSE.search(s.prose)
            and not _HEDGED.search(s.prose)
            and not _ONLY_WHERE.search(s.prose)
            and not _ANNOUNCED.match(s.prose)
            and not _ACTING.match(s.prose)
        ),
        "",
    )


def _error_text(failure: _Open) -> str:
    """The failing line with the task it came from, naming the run's further distinct lines that
    got no record of their own."""
    result = failure.failing.result if failure.failing is not None else None
    line = with_task(failure.line, result.text) if result is not None else failure.line
    if not failure.also:
        return line
    also = "; ".join(_short(line) for line in failure.also)
    return cut(f"{line} (also: {also})", ERROR_LIMIT + _ALSO_LIMIT)


# What a sandbox refuses beyond the file system's own refusals (`_SYSTEM_ERROR`): an operation or
# a port not permitted, the network (a name that does not resolve).
_SANDBOXED = re.compile(
    r"Operation not permitted|PermissionDenied|(?:Could not|Couldn't|failed to) resolve (?:host|address)|"
    r"getaddrinfo|\bENOTFOUND\b|\bEAI_AGAIN\b|Network is unreachable|nodename nor servname|"
    r"Temporary failure in name resolution|failed in sandbox",
    re.IGNORECASE,
)


def _left_sandbox(failing: ToolCall | None, passing: ToolCall) -> str:
    """A failure the sandbox caused, fixed by running the command outside it: the edits made in
    between are other work, not its fix."""
    if (
        failing is None
        or failing.unsandboxed
        or not passing.unsandboxed
        or passing.kind is not ToolKind.COMMAND
    ):
        return ""
    text = failing.result.text if failing.result else ""
    if not (_SYSTEM_ERROR.search(text) or _SANDBOXED.search(text)):
        return ""
    return f"Re-ran `{cut(_bare(_command(passing)), 80)}` outside the sandbox (escalated permissions)"


def _changed_command(failing: ToolCall | None, passing: ToolCall) -> str:
    """With nothing changed in between, the fix was the command itself (`git commit
    --no-gpg-sign`, the same command without the `rtk` wrapper)."""
    if failing is None or passing.kind is not ToolKind.COMMAND:
        return ""
    before, after = _bare(_command(failing)), _bare(_command(passing))
    if not after or _SHOWN.sub("", before) == _SHOWN.sub("", after):
        return ""  # (`| tail -20` then `| tail -15`: the same command, its output shown otherwise)
    return f"Ran `{cut(after, 80)}` instead of `{cut(before, 80)}`"


# How much of a command's output is shown: `2>&1`, `| tail -20`, `| head -50`, `| grep -v warn`.
_SHOWN = re.compile(r"\s*2>&1|\s*\|\s*(?:tail|head|tee|cat|less|grep)\b[^|;&]*")


def _short(line: str) -> str:
    """A further failing line named in passing: its error code when it has one, else its message."""
    code = _CODE.search(line)
    return code.group(0) if code else cut(_POSITION.sub("", line), 80)


# A command that first makes a scratch folder or file (`tmp=$(mktemp -d); git -C "$tmp" init`)
# tries something out there; whatever it creates or configures is not part of a fix.
_SCRATCH = re.compile(r"\$\(\s*mktemp\b|`mktemp\b")


def _fix(session: Session, between: list[ToolCall], failing_key: Key, error: str = "") -> str:
    """The edits (and state-changing commands) made between the failure and the success; the
    file the error names (`src/a.tsx(52,53): …`) first, the likeliest place it was fixed."""
    edited: dict[str, None] = {}
    created: dict[str, None] = {}
    commands: list[str] = []
    for call in between:
        path = written_file(call)
        if path is not None:
            structured = (call.result.structured if call.result else None) or {}
            is_new = call.kind is ToolKind.WRITE and structured.get("type") == "create"
            (created if is_new else edited).setdefault(relative_path(path, session.project_root), None)
            continue
        if call.kind is not ToolKind.COMMAND or failure_lines(call) != [] or _kind_key(call) == failing_key:
            continue
        if _SCRATCH.search(_command(call)):
            continue  # works in a folder it made for the occasion: nothing of the project changed
        if _changes(_verdict(call)):
            commands.append(f"ran `{cut(_bare(_command(call)), 80)}`")
        else:  # `mise run pkl:gen && cargo test` is a check, but its first part made what was missing
            commands += [f"ran `{cut(text, 80)}`" for text, part in parts(call) if _changes(part)]
    named = [_named("Edited", _named_first(list(edited), error)), _named("Created", list(created))]
    named += commands[-_MAX_COMMANDS_NAMED:]  # the last before the success: likeliest what made it pass
    text = "; ".join(p for p in named if p)
    return text[:1].upper() + text[1:]


def _changes(verdict: SegmentVerdict | None) -> bool:
    """A command (or part of one) that changes something a fix can be made of."""
    return verdict is not None and (
        verdict.kind.intent in _CHANGING
        or verdict.kind.what == "stops processes"
        or (verdict.base == "git" and verdict.subcommand == "pull")  # takes in the remote's work
    )


# The file a diagnostic names, before its position: `src/a.tsx(52,53):`, `a.go:76:31:`.
_ERROR_PATH = re.compile(r"^\s*(?:\[ERROR\]\s+)?(\S+?\.[A-Za-z]{1,5})(?::\d|\(\d+,\d+\)|:\[\d)")


def _named_first(paths: list[str], error: str) -> list[str]:
    """`paths` with the one the error's position names first (matched by its trailing parts)."""
    found = _ERROR_PATH.match(error)
    if found is None:
        return paths
    named = found.group(1).removeprefix("./")
    first = [p for p in paths if p == named or p.endswith("/" + named) or named.endswith("/" + p)]
    return first + [p for p in paths if p not in first]


def _named(verb: str, paths: list[str]) -> str:
    if not paths:
        return ""
    shown = ", ".join(paths[:_MAX_FILES_NAMED])
    more = len(paths) - _MAX_FILES_NAMED
    return f"{verb} {shown}" + (f" and {more} more files" if more > 0 else "")


def _verification(session: Session, call: ToolCall) -> str:
    """The succeeding call, with test counts when its output states them."""
    if call.kind is not ToolKind.COMMAND:
        return f"{call.name} of {relative_path(_kind_key(call)[1], session.project_root)} succeeded"
    label = f"`{cut(_bare(_command(call)), 80)}`"
    if call.result is not None and _TIMED_OUT.match(call.result.text):
        return f"{label} kept running without the error until the time limit"
    counts = _counts(call.result.text if call.result else "")
    if counts:
        return f"{label} passed ({counts})"
    return f"{label} passed" if _is_check(call) else f"{label} succeeded"


def _counts(text: str) -> str:
    """'12 passed, 1 skipped' from the last line of the output that states how many passed."""
    for line in reversed(text.splitlines()):
        if re.search(r"\b\d+ passed\b", line):
            pairs = [f"{n} {what}" for n, what in _COUNT.findall(line) if int(n) > 0]
            return ", ".join(pairs)
    return ""


def _unresolved(
    session: Session, run: _Run, failure: _Open, texts: dict[str, list[Sentence]]
) -> ErrorResolution:
    """A failure the session never got past: its line, and the root cause only when the assistant
    stated one in the turns right after it; no fix, no verification."""
    start = _after(failure)
    said = [s for call in run.calls[start : start + _CAUSE_WINDOW] for s in texts.get(call.id, [])]
    return ErrorResolution(error=_error_text(failure), root_cause=cut(_stated_cause(said), _FIX_LIMIT))
