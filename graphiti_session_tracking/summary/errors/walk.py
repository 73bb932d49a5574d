"""The walk over the session's calls that opens failures and resolves them: each failing line
stays open, by thread and kind of call, until a later call shows the session got past it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from .._sentences import Sentence, cut, split_sentences
from ..model import ErrorResolution
from .commands import _PASTED, Key, _bare, _command, _is_check, _kind_key, hides
from .lines import _MAX_RECORDS_PER_RUN, _VOLATILE, _clean, _message_tail, _signature, pasted_errors
from .record import _fix, _record, _unresolved, _verification
from .verdict import _CI_RERUN, _CI_RUN, _RAN_TESTS, Unnamed, _stalled, failure_lines, reported_lines

# A merge that stopped on conflicts is done when the merge is committed or continued.
_CONFLICTED = re.compile(r"^CONFLICT \(", re.MULTILINE)
_GIT_FINISHING = re.compile(r"\bgit\s+(?:commit\b|(?:merge|rebase|cherry-pick|am)\s+--continue\b)")


@dataclass
class _Open:
    """A failing line not yet resolved: where it was first seen, and by which call."""

    line: str
    first: int  # index in the session's calls (for a pasted error: the calls made before it)
    failing: ToolCall | None
    also: list[str] = field(default_factory=list)  # further distinct lines of the run, not recorded alone
    soft: bool = (
        False  # the command exited 0 but printed errors: only the same command rerun proves them gone
    )


@dataclass
class _Run:
    """Every call of the session in order (all threads, so a sub-agent's edit is a fix made in
    between), and the failing lines still open, by thread and kind of call."""

    calls: list[ToolCall] = field(default_factory=list)
    open: dict[tuple[str, Key], dict[str, _Open]] = field(default_factory=dict)
    resolved: dict[tuple[str, Key, str], tuple[int, ErrorResolution]] = field(default_factory=dict)


def extract_errors_resolved(session: Session) -> list[ErrorResolution]:
    """One record per distinct failing line of the work, in order of failure: with its fix when the
    session later got past it, with an empty fix when it never did (the error still happened, and
    "have we seen this before?" needs it; no fix beats a made-up one)."""
    texts = _assistant_texts_by_call(session)
    return _records(session, _walk(session, texts), texts)


def _walk(session: Session, texts: dict[str, list[Sentence]]) -> _Run:
    """Every call in order, with the failures each opens and resolves."""
    run = _Run()
    for message in session.messages:
        thread = "side" if message.is_sidechain or message.from_subagent else "main"
        if thread == "main" and message.is_human:
            for line in pasted_errors(message.text):
                run.open.setdefault((thread, _PASTED), {}).setdefault(
                    _signature(line), _Open(line, len(run.calls), None)
                )
        for call in message.tool_calls:
            run.calls.append(call)
            _step(session, run, thread, len(run.calls) - 1, texts)
    return run


def _records(session: Session, run: _Run, texts: dict[str, list[Sentence]]) -> list[ErrorResolution]:
    """The resolved failures and the ones still open at the end, in order of failure, each error
    once. A failure still open is recorded when a call failed outright or the user pasted it:
    errors a command printed while exiting 0 (`soft`) may be what it is meant to print, and only
    the session's reaction (the same command rerun clean after a change) makes them errors. Nor is
    a line picked for want of a known form (`Unnamed`) recorded while open: with neither a named
    failure nor the session's reaction, the row would more often be wrong than right."""
    unresolved = [
        (failure.first, _unresolved(session, run, failure, texts))
        for failures in run.open.values()
        for failure in failures.values()
        if not failure.soft and not isinstance(failure.line, Unnamed)
    ]
    kept: list[tuple[int, ErrorResolution]] = []
    seen: set[str] = set()
    # a resolved record first: the same error hit twice in a session is one record, with its fix
    for first, record in sorted(run.resolved.values(), key=lambda item: item[0]) + sorted(
        unresolved, key=lambda item: item[0]
    ):
        signature = _signature(record.error)
        if signature not in seen:
            seen.add(signature)
            kept.append((first, record))
    return [record for _, record in sorted(kept, key=lambda item: item[0])]


def _step(session: Session, run: _Run, thread: str, index: int, texts: dict[str, list[Sentence]]) -> None:
    """Update the open failures with the call at `index`; record the ones it resolves."""
    call = run.calls[index]
    lines = failure_lines(call)
    if lines is None:
        return
    key = _kind_key(call)
    stalled = None if lines else _stalled(call)
    if stalled is not None:
        lines = [stalled]

    def resolve(slot: Key, signature: str, failure: _Open, verification: str) -> None:
        record = _record(session, run, failure, index, texts, verification)
        run.resolved[(thread, slot, signature)] = (failure.first, record)
        del run.open[(thread, slot)][signature]

    still = run.open.setdefault((thread, key), {})
    if lines:  # failed
        signatures = {_signature(line) for line in lines}
        for signature, failure in list(still.items()):
            failing = failure.failing
            if signature not in signatures and _wrong_folder(session, run, failure, index):
                del still[signature]  # it went away once run from the right folder
            elif (
                signature not in signatures
                and failing is not None
                and _got_further(failing, call)
                and not _carries(call.result.text if call.result else "", failure.line)
                and _fix(session, run.calls[failure.first + 1 : index], key)
            ):
                resolve(
                    key,
                    signature,
                    failure,
                    f"rerun of `{cut(_bare(_command(call)), 80)}` no longer reports it",
                )
        _open_lines(run, thread, key, index, lines, soft=False)
        return
    verification = _verification(session, call)
    for signature, failure in list(still.items()):
        if _wrong_folder(session, run, failure, index):
            del still[signature]  # run again from another folder, nothing changed: a slip, not an error
        elif _proves_gone(session, run, failure, index):
            resolve(key, signature, failure, verification)
    for (owner, other), failures in list(run.open.items()):
        if owner != thread or other == key:
            continue
        for signature, failure in list(failures.items()):
            if not failure.soft and _answers(session, run, failure, index):
                resolve(other, signature, failure, verification)
    if not _is_check(call):  # a check that exited 0 passed, whatever its tests logged
        _open_lines(run, thread, key, index, reported_lines(call), soft=True)


def _open_lines(run: _Run, thread: str, key: Key, index: int, lines: list[str], *, soft: bool) -> None:
    """Open the run's failing lines not open already (the same message about another item is)."""
    still = run.open.setdefault((thread, key), {})
    fresh = [
        line
        for line in lines
        if _signature(line) not in still and not any(_carries(line, open_.line) for open_ in still.values())
    ]
    for line in fresh:
        run.resolved.pop((thread, key, _signature(line)), None)  # it came back: it was not fixed
    for line in fresh[:_MAX_RECORDS_PER_RUN]:
        still[_signature(line)] = _Open(line, index, run.calls[index], soft=soft)
    if len(fresh) > _MAX_RECORDS_PER_RUN:
        still[_signature(fresh[_MAX_RECORDS_PER_RUN - 1])].also = fresh[_MAX_RECORDS_PER_RUN:]


def _proves_gone(session: Session, run: _Run, failure: _Open, index: int) -> bool:
    """Whether the successful call at `index`, of the failure's kind, shows it got past.

    Not when its output still prints the failing message (a script that only logs its errors),
    nor when it pipes its output through a `grep` that would hide that message.
    Errors a command printed while exiting 0 are gone only when the very same command, run again
    after a change, no longer prints them: another command of the kind may simply not reach them.
    """
    call = run.calls[index]
    if _carries(call.result.text if call.result else "", failure.line) or hides(call, failure.line):
        return False
    if failure.failing is not None and _same_ci_run(
        failure.failing, call, run.calls[failure.first + 1 : index]
    ):
        return False
    if not failure.soft or failure.failing is None:
        return True
    same = _bare(_command(failure.failing)) == _bare(_command(call))
    return same and bool(_fix(session, run.calls[failure.first + 1 : index], _kind_key(call)))


def _same_ci_run(failing: ToolCall, call: ToolCall, between: list[ToolCall]) -> bool:
    """Both read back the same CI run, not run again in between (`gh run rerun`): what a finished
    run printed never changes, so asking it again (its status, another job's log) proves its
    failure gone no more than reading it twice."""
    before, after = _CI_RUN.search(_command(failing)), _CI_RUN.search(_command(call))
    if before is None or after is None or before.group(1) != after.group(1):
        return False
    return not any(_CI_RERUN.search(_command(c)) for c in between if c.kind is ToolKind.COMMAND)


def _carries(text: str, line: str) -> bool:
    """`text` still carries the failing line's message: its text after the last `: `, so
    `Error processing b.json: bad escape \\U` is the same error for another file."""
    needle = _message_tail(line)
    return bool(needle) and needle in " ".join(_VOLATILE.sub("#", _clean(text)).lower().split())


def _answers(session: Session, run: _Run, failure: _Open, index: int) -> bool:
    """Whether the successful call at `index`, of another kind, shows `failure` got past.

    A pasted error: a check passed after files changed. A wrapper that failed (`rtk bun test`):
    the same command ran without it. A merge stopped on conflicts: it was committed or continued,
    or a check passed after the files were edited.
    """
    call, failing = run.calls[index], failure.failing
    if failing is None:
        return _is_check(call) and bool(_fix(session, run.calls[failure.first : index], _PASTED))
    bare, before = _bare(_command(call)), _bare(_command(failing))
    if bare and before.endswith(" " + bare):
        return True
    text = failing.result.text if failing.result else ""
    if not _CONFLICTED.search(text):
        return False
    finished = bool(_GIT_FINISHING.search(bare))
    return finished or (
        _is_check(call) and bool(_fix(session, run.calls[failure.first + 1 : index], _PASTED))
    )


def _wrong_folder(session: Session, run: _Run, failure: _Open, index: int) -> bool:
    """The same command run again from another folder (`cd .. && …`) with nothing changed."""
    if failure.failing is None:
        return False
    before, after = _command(failure.failing), _command(run.calls[index])
    changed = _fix(session, run.calls[failure.first + 1 : index], _kind_key(failure.failing))
    return before != after and _bare(before) == _bare(after) and not changed


def _got_further(failing: ToolCall, rerun: ToolCall) -> bool:
    """The rerun is the same command, or ran tests where the failing run could not even start."""
    if _command(failing) == _command(rerun):
        return True
    before = failing.result.text if failing.result else ""
    after = rerun.result.text if rerun.result else ""
    return not _RAN_TESTS.search(before) and bool(_RAN_TESTS.search(after))


def _assistant_texts_by_call(session: Session) -> dict[str, list[Sentence]]:
    """Each call id → the sentences of assistant text its thread wrote since its previous call.

    Text and tool calls alternate in a thread; text that precedes a call is credited to it, so
    "between failure and success" becomes a slice of calls.
    """
    by_call: dict[str, list[Sentence]] = {}
    pending: dict[bool, list[Sentence]] = {True: [], False: []}
    for message in session.messages:
        if message.role != "assistant":
            continue
        side = message.is_sidechain or message.from_subagent
        pending[side].extend(split_sentences(message.text))
        for call in message.tool_calls:
            by_call[call.id] = pending[side]
            pending[side] = []
    return by_call
