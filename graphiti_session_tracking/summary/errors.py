"""Errors the session's work ran into and got past, read from the tool calls alone (no LLM).

An error is a failing command of the work: a test run, a build, a lint, a script, a git push, an
install. The agent's own hiccups are not: a tool the harness refused (an Edit whose text was not
found, a file not read yet), a call the user rejected, a `cd` into a missing folder, a `grep`
that found nothing, a warning. Each distinct failing line of the output (a compiler diagnostic,
an exception, a failed test) is its own record, so one code can be found by searching for it.
A command can fail while exiting 0: a script that reports errors in words and goes on (gone only
when the same command, rerun after a change, no longer prints them), or one left waiting at an
interactive prompt (gone when the program runs to its end).

A failing line counts as resolved when a later call *of the same kind* succeeds (same program and
subcommand, `pytest tests/x.py` then `pytest -q`), or when the very same command is run again
after a change and no longer reports it; a run that still prints the message proves nothing.
What was changed in between is the fix, the call that proved it the verification. The root cause
is the assistant's own explicit explanation ("the import fails because…"), never a hedged guess
nor a mere place ("the issue is on line 42"): an empty root cause beats a wrong one. Errors the
user pasted into a request (compiler diagnostics, exceptions) count when the session then
changed files and a check (test, build, lint) passed. Sub-agents' calls are read like the main
thread's: a failure is matched with later calls of its own thread, while an edit a sub-agent made
in between counts as part of the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from graphiti_session_tracking.tools.bash import BashAnalyzer, SegmentVerdict
from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import Session, ToolCall

from ._sentences import Sentence, cut, split_sentences
from .files import relative_path, written_file
from .model import ErrorResolution

ERROR_LIMIT = 200
_FIX_LIMIT = 400
_MAX_FILES_NAMED = 5
_MAX_COMMANDS_NAMED = 2
_MAX_RECORDS_PER_RUN = 5  # distinct failing lines of one run kept as records; the rest are named
_ALSO_LIMIT = 300

_ANALYZER = BashAnalyzer()
_judge_line = lru_cache(maxsize=4096)(_ANALYZER.judge_line)  # each command is judged several times
_analyze = lru_cache(maxsize=4096)(_ANALYZER.analyze)
_COMMAND_TOOLS = frozenset({"Bash", "PowerShell"})

# Results that are "errors" only in form: the harness refusing a call, or the user saying no.
_NOT_AN_ERROR = re.compile(
    r"doesn't want to proceed|user rejected|rejected by the user|\[Request interrupted|"
    r"was interrupted by the user|Command running in background|was blocked\. For security|"
    r"^Sibling tool call errored|Permission for this action (?:was|has been) denied|"
    r"permission to use \S+ has been denied|denied by the Claude Code auto mode|"
    # the user's own Claude Code hooks failing: their setup, not the session's work
    r"\b(?:PreToolUse|PostToolUse|UserPromptSubmit|Stop|SubagentStop|SessionStart|SessionEnd|PreCompact)"
    r"(?::\w+)? hook\b|non-blocking status code|hook (?:error|execution|command) ",
    re.IGNORECASE,
)
_TIMED_OUT = re.compile(r"\A\s*Command timed out")
_EXIT_CODE = re.compile(r"\AExit code (-?\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\^\[\[[0-9;]*m")
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")

# Failing lines, most telling first. A diagnostic names a file position or an error code.
_TAG = r"(?:\[ERROR\]\s+)?"  # Maven's tag before a diagnostic
_DIAGNOSTIC = re.compile(
    rf"^\s*{_TAG}(?:\S+\.[A-Za-z]{{1,5}}:\d+(?::\d+)?:|\S+\.[A-Za-z]{{1,5}}\(\d+,\d+\):|\S+\.java:\[\d+,\d+\])\s*"
    r"(?!warning\b|note\b|info\b|hint\b|in\s|[:#])(?:error\b:?\s*)?\S.*$"
    r"|^\s*error\[E\d+\]:\s+\S.*$"
    r"|^.*\berror TS\d+:.*$",
    re.IGNORECASE,
)
_PYTEST_E = re.compile(r"^E\s+((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit)\b.*)$")
_EXCEPTION = re.compile(
    r"^\s*((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?: \[\w+\])?(?::.*|\s*))$"
    r"|^\s*(\S+: No module named .*)$"
)
_FAILED_TEST = re.compile(
    r"^\s*(FAILED\s+\S.*|\S+::\S+ FAILED\b.*|test \S+ \.\.\. FAILED.*|--- FAIL: .*|FAIL\s+\S+\.\w+.*)$"
)
_REPORTED = re.compile(
    r"^\s*((?:remote: )?(?:error|fatal|npm ERR!|ERROR|Error|FATAL)[:!]?\s+\S.*|CONFLICT \(.*|\[ERROR\]\s+\S.*|"
    r"Would reformat:? .*|.*\bBuild error occurred\b.*|.*\bfailed to (?:push|compile|build)\b.*)$"
)
# Generic summaries that say "it failed" without saying what; used only when nothing better is there.
_VAGUE = re.compile(
    r"could not compile|aborting due to|Process completed with exit code|ERROR task failed|"
    r"^\s*(?:\[ERROR\]\s*(?:->|$|Re-run|To see|For more|Help)|FAIL\s*$|error: Recipe|make: \*\*\*|"
    r"npm ERR! (?:code|path|errno|syscall|command|A complete log|\s*$))|Found \d+ errors?|"
    r"\[(?:build|setup) failed\]",
    re.IGNORECASE,
)
_WARNING = re.compile(
    r"^\s*(?:warning|warn|npm warn|\(node:\d+\) \w*Warning|\w*Warning:|WARN)\b", re.IGNORECASE
)
# Looking around that found nothing: not the work failing.
_HICCUP = re.compile(
    r"no such file or directory|no matches found|cannot access|not a directory|is a directory|"
    r"command not found|is not recognized as|not found in file|No changes to make|"
    r"No local changes to save|nothing to commit|nothing added to commit|Already up to date|No stash entries",
    re.IGNORECASE,
)
# Signs of failure in the output of a command whose exit code a pipe may have hidden.
_FAILED_OUTPUT = re.compile(
    r"^Traceback \(most recent call last\):|^FAILED\b|^ERROR collecting|^--- FAIL|^FAIL\s|"
    r"test result: FAILED|^error\[E\d+\]: |\berror TS\d+:|(?<![A-Za-z]\s)\b[1-9]\d* failed\b|^\s*[1-9]\d* fail$|"
    r"\b[1-9]\d* errors? (?:in|during)\b|^npm ERR!|^\[ERROR\] |^Would reformat",
    re.MULTILINE,
)
_RAN_TESTS = re.compile(r"\b\d+ (?:passed|failed)\b|^(?:ok|FAIL|---)\s", re.MULTILINE)
_COUNT = re.compile(r"\b(\d+) (passed|failed|skipped|ignored|errors?|xfailed|xpassed|deselected|warnings?)\b")
_CODE = re.compile(r"\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b")
_LINTER = re.compile(r"\((?!typecheck\))[a-z][a-z0-9-]+\)$")  # golangci-lint's `… (errcheck)`
_POSITION = re.compile(rf"^\s*{_TAG}\S+?\.[A-Za-z]{{1,5}}(?::\d+(?::\d+)?:|\(\d+,\d+\):|:\[\d+,\d+\])\s*")

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

_CHECK_WORD = re.compile(
    r"(?:^|&&|;|\|)\s*(?:(?:mise|make|just|task|npm|pnpm|yarn|bun|deno|uv|poetry|hatch|tox|nox|go|cargo|"
    r"dotnet|mvn|gradle|swift)\b[^|;&]*?[\s:](?:test|tests|lint|check|build|vet|typecheck|ci|clippy|compile|"
    r"verify)(?:$|[\s:])|(?:tsc|pytest|ruff|mypy|eslint|golangci-lint)\b)",
)
# Failures the harness reports for a file tool that are the machine's, not the agent's.
_SYSTEM_ERROR = re.compile(
    r"\bEACCES\b|\bEPERM\b|permission denied|read-only file system|no space left", re.I
)
# A merge that stopped on conflicts is done when the merge is committed or continued.
_CONFLICTED = re.compile(r"^CONFLICT \(", re.MULTILINE)
_GIT_FINISHING = re.compile(r"\bgit\s+(?:commit\b|(?:merge|rebase|cherry-pick|am)\s+--continue\b)")

Key = tuple[str, ...]
_CHANGING = frozenset(
    {ToolIntent.CREATE, ToolIntent.MODIFY, ToolIntent.DELETE, ToolIntent.CONFIGURE, ToolIntent.TRANSFORM}
)
_PASTED: Key = ("pasted",)


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
    """One record per distinct failing line that the session later got past, in order of failure."""
    return _records(_walk(session))


def _walk(session: Session) -> _Run:
    """Every call in order, with the failures each opens and resolves."""
    texts = _assistant_texts_by_call(session)
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


def _records(run: _Run) -> list[ErrorResolution]:
    records: list[ErrorResolution] = []
    seen: set[str] = set()
    for _, record in sorted(run.resolved.values(), key=lambda item: item[0]):
        signature = _signature(record.error)
        if signature not in seen:  # the same error hit twice in a session is one record
            seen.add(signature)
            records.append(record)
    return records


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

    Not when its output still prints the failing message (a script that only logs its errors).
    Errors a command printed while exiting 0 are gone only when the very same command, run again
    after a change, no longer prints them: another command of the kind may simply not reach them.
    """
    call = run.calls[index]
    if _carries(call.result.text if call.result else "", failure.line):
        return False
    if not failure.soft or failure.failing is None:
        return True
    same = _bare(_command(failure.failing)) == _bare(_command(call))
    return same and bool(_fix(session, run.calls[failure.first + 1 : index], _kind_key(call)))


def _carries(text: str, line: str) -> bool:
    """`text` still carries the failing line's message: its text after the last `: `, so
    `Error processing b.json: bad escape \\U` is the same error for another file."""
    needle = _message_tail(line)
    return bool(needle) and needle in " ".join(_VOLATILE.sub("#", _clean(text)).lower().split())


def _message_tail(line: str) -> str:
    """What a failing line says, past its position and the item it names (lowercase, times and
    ids as `#`); "" when too short to tell one error from another, or for a stall."""
    if _STALL.match(line):
        return ""
    message = _VOLATILE.sub("#", _POSITION.sub("", line).rstrip("…")).strip()
    tail = message.rsplit(": ", 1)[-1].strip()
    needle = tail if len(tail) >= 12 and " " in tail else message  # not a bare name: `…: 'config.yaml'`
    return " ".join(needle.lower().split()) if len(needle) >= 12 else ""


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


def _bare(command: str) -> str:
    """The command without the `cd somewhere &&` it starts with."""
    return " ".join(re.sub(r"^(?:\s*cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*&&)+", "", command).split())


def _got_further(failing: ToolCall, rerun: ToolCall) -> bool:
    """The rerun is the same command, or ran tests where the failing run could not even start."""
    if _command(failing) == _command(rerun):
        return True
    before = failing.result.text if failing.result else ""
    after = rerun.result.text if rerun.result else ""
    return not _RAN_TESTS.search(before) and bool(_RAN_TESTS.search(after))


def failure_lines(call: ToolCall) -> list[str] | None:
    """The distinct failing lines of a failed command; [] when it succeeded; None when it says
    nothing about the work (no result, not a command, a refusal, a lookup, a hiccup)."""
    result = call.result
    if result is None:
        return None
    if call.name not in _COMMAND_TOOLS:
        line = _first_line(_clean(result.text))
        if result.is_error and _SYSTEM_ERROR.search(line):
            return [cut(line, ERROR_LIMIT)]  # a Write refused by the file system
        return [] if _kind_key(call)[1] != call.name else None
    verdict = _verdict(call)
    if verdict is not None and verdict.kind.intent in (ToolIntent.READ, ToolIntent.SEARCH):
        return None  # `grep` finding nothing or `ls` of a missing folder is looking, not failing
    text = _clean(result.text)
    if _NOT_AN_ERROR.search(text[:500]):
        return None
    if _TIMED_OUT.match(text):
        # A server or watcher stopped at the time limit ran; a check that hung says nothing.
        return None if _is_check(call) else error_lines(text)
    code = _EXIT_CODE.match(text)
    failed = (
        result.is_error or (code is not None and code.group(1) != "0") or bool(_FAILED_OUTPUT.search(text))
    )
    if not failed:
        return []
    lines = error_lines(text)
    if lines:
        return lines
    first = _first_line(text)
    if not first or _HICCUP.search(text):
        return None  # a failure that names nothing, or a missing file: not the work failing
    return [cut(_telling_line(text) or first, ERROR_LIMIT)]


def reported_lines(call: ToolCall) -> list[str]:
    """Errors a command of the work reported in words while exiting 0 (a script that logs each
    failure and goes on: `Error processing a.json: bad escape`); [] for a lookup, or when it only
    printed positions or stack frames (a hook's test logs)."""
    result = call.result
    if call.name not in _COMMAND_TOOLS or result is None or result.is_error:
        return []
    verdict = _verdict(call)
    if verdict is not None and verdict.kind.intent in (ToolIntent.READ, ToolIntent.SEARCH):
        return []
    text = _clean(result.text)
    if _NOT_AN_ERROR.search(text[:500]) or _TIMED_OUT.match(text) or _HICCUP.search(text):
        return []
    if _RAN_TESTS.search(text):
        return []  # tests ran and passed (a commit's hook): what they logged is theirs
    return _told_in_words(_meaningful_lines(text))


# A question left waiting for an answer: `? Use src/? › No / Yes`, `Continue? [y/N]`.
_PROMPT = re.compile(r"^\s*\?\s+\S.*\?.*›|(?:\(y/n\)|\[y/n\]|\(yes/no\)|\[yes/no\])\s*:?\s*$", re.IGNORECASE)
_STALL = re.compile(r"^`[^`]*` waited for an answer at an interactive prompt")


def _stalled(call: ToolCall) -> str | None:
    """The prompt a command stopped at, when its output ends on a question nobody answered (a
    scaffolder asking for options in a shell with no input): it did not run, though it exited 0."""
    result = call.result
    if call.name not in _COMMAND_TOOLS or result is None or result.is_error:
        return None
    last = next(
        (
            line
            for line in reversed(_clean(result.text).splitlines())
            if line.strip() and not _WARNING.match(line)
        ),
        "",
    )
    if not _PROMPT.search(last) or "✔" in last:
        return None
    program = " ".join(_kind_key(call)[1:])
    return cut(f"`{program}` waited for an answer at an interactive prompt: {last.strip()}", ERROR_LIMIT)


def error_lines(text: str) -> list[str]:
    """The distinct failing lines of `text`, the most telling first (each cut to ERROR_LIMIT).

    Diagnostics (a compiler's `file:line:col: message`, `error[E0308]`, `error TS2307`) in their
    order; the exception pytest reports (`E   ImportError: …`) or a traceback's last exception;
    failed tests; then lines that report an error in words (`fatal: …`, `CONFLICT …`,
    `Would reformat: …`). Warnings and "could not compile"-style summaries are never chosen.
    """
    raw = _meaningful_lines(text)
    diagnostics = [line.strip() for line in raw if _DIAGNOSTIC.match(line) and not _VAGUE.search(line)]
    pytest_e = [m.group(1) for line in raw if (m := _PYTEST_E.match(line))]
    exceptions = [next(g for g in m.groups() if g) for line in raw if (m := _EXCEPTION.match(line))]
    tests = [m.group(1) for line in raw if (m := _FAILED_TEST.match(line))]
    if not (diagnostics or pytest_e or exceptions) and tests:
        tests = [_with_message(test, raw) for test in tests]
    tiers = (diagnostics, pytest_e, exceptions[-1:], tests)
    ordered = next((tier for tier in tiers if tier), [])
    return _distinct(ordered) if ordered else _told_in_words(raw)


# What a failed test's report says went wrong, on the lines after its name (`expect(received)…`,
# `Expected: 3`, `TypeError: …`, `assertion failed`).
_TEST_MESSAGE = re.compile(
    r"(?i)\b(?:error|expected|received|assert\w*|exception|panic\w*|timed? ?out|not (?:equal|found)|"
    r"mismatch\w*|undefined|cannot|failed to)\b"
)


def _with_message(test: str, raw: list[str]) -> str:
    """A failed test's line and the first line of its report that says what went wrong, when the
    output has one within the next lines (a careful reader writes down both)."""
    at = next((i for i, line in enumerate(raw) if test in line), None)
    if at is None:
        return test
    for line in raw[at + 1 : at + 8]:
        stripped = line.strip()
        if _FAILED_TEST.match(line) or _COUNT.search(stripped):
            break  # the next test's report, or the totals
        if _TEST_MESSAGE.search(stripped) and not stripped.startswith(("at ", "File ")):
            return f"{test} / {cut(stripped, 160)}"
    return test


def _meaningful_lines(text: str) -> list[str]:
    raw = [line.rstrip() for line in _clean(text).splitlines()]
    return [line for line in raw if line.strip() and not _WARNING.match(line)]


def _told_in_words(raw: list[str]) -> list[str]:
    """Lines that report an error in words tell one story (`error: gpg failed…` / `fatal: …`),
    each message once (`Error processing a.json: x` not again for b.json)."""
    told: dict[str, str] = {}
    for line in raw:
        m = _REPORTED.match(line)
        if m and not _VAGUE.search(line):
            told.setdefault(_message_tail(m.group(1)) or m.group(1).strip(), m.group(1).strip())
    return _distinct([" / ".join(told.values())]) if told else []


def error_line(text: str) -> str:
    """The most telling line of a failure's output (see error_lines), else its first line."""
    lines = error_lines(text)
    return lines[0] if lines else cut(_first_line(_clean(text)) or text, ERROR_LIMIT)


# Type checkers' messages, recognizable without a file position (Go, TypeScript, Rust, mypy).
_COMPILER_MESSAGE = re.compile(
    r"\bcannot use \S.* as \S.* value in \w|\bundefined: \w|\bdeclared and not used\b|"
    r"\b(?:too many|not enough) arguments in call to\b|\bis not assignable to (?:type|parameter)\b|"
    r"\bhas no (?:field or method|attribute|member)\b|\bmismatched types\b|\bcannot find (?:value|type|function) `"
)


def pasted_errors(text: str) -> list[str]:
    """Diagnostics and exceptions the user pasted into a request (each distinct, cut)."""
    if text.lstrip().startswith("<"):
        return []  # a harness wrapper (command output, hook), not a request
    lines = []
    for line in _clean(text).splitlines():
        if _WARNING.match(line):
            continue
        positioned = bool(_DIAGNOSTIC.match(line) and (_POSITION.match(line) or _CODE.search(line)))
        compiler = _COMPILER_MESSAGE.search(line)
        if (positioned or _EXCEPTION.match(line) or _PYTEST_E.match(line)) and not _VAGUE.search(line):
            lines.append(line.strip())
        elif compiler:  # a type checker's message pasted without its position ("fix this: cannot use …")
            lines.append(line[compiler.start() :].strip())
    return _distinct(lines)[:_MAX_RECORDS_PER_RUN]


def _distinct(lines: list[str]) -> list[str]:
    """One line per error: the same code, rule or message (even about another variable) once."""
    kept: list[str] = []
    signatures: list[str] = []
    for line in lines:
        signature = _signature(line)
        if any(
            signature == other or SequenceMatcher(None, signature, other).ratio() >= 0.9
            for other in signatures
        ):
            continue
        signatures.append(signature)
        kept.append(cut(line, ERROR_LIMIT))
    return kept


def _clean(text: str) -> str:
    return _TOOL_ERROR_TAG.sub("", _ANSI.sub("", text)).replace("\r", "")


# A line that says in words that something failed, for output with no line of a known form.
_SAYS_FAILED = re.compile(
    r"(?i)\b(?:error|errors|fail(?:ed|ure|s)?|denied|refused|rejected|cannot|can't|could not|couldn't|"
    r"unable|not found|no such|invalid|missing|timed? ?out|exception|panic|fatal|unauthori[sz]ed|"
    r"forbidden|conflict|abort(?:ed)?|not permitted|not allowed)\b"
)


def _telling_line(text: str) -> str:
    """The last line of a failure's output that says what failed in words: output opens with
    banners and echoes of the command and ends with its conclusion."""
    for line in reversed(_meaningful_lines(text)):
        stripped = line.strip()
        if _SAYS_FAILED.search(stripped) and not _EXIT_CODE.match(stripped) and not _VAGUE.search(stripped):
            return stripped
    return ""


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not _EXIT_CODE.match(stripped) and not _WARNING.match(stripped):
            return stripped
    return ""


def _signature(line: str) -> str:
    """What makes two failing lines the same error: the same error code or linter rule, else the
    same message once file positions, times, ports and long ids are left out (a small number
    stays: `test_broken_5` is not `test_broken_15`); a program's prompts are one stall."""
    stall = _STALL.match(line)
    if stall:
        return stall.group(0)
    code = _CODE.search(line) or _LINTER.search(line)
    if code:
        return code.group(0)
    message = re.sub(r"\s*\(typecheck\)$", "", _POSITION.sub("", line))
    message = _VOLATILE.sub("#", message)
    return " ".join(message.lower().split())


# What changes from one run of the same error to the next: timestamps, ports, pids, hex ids.
_VOLATILE = re.compile(
    r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b[0-9a-f]{7,}\b|(?<![\w.])\d{4,}"
)


def _verdict(call: ToolCall) -> SegmentVerdict | None:
    command = _command(call)
    return _judge_line(command) if command else None


def _command(call: ToolCall) -> str:
    command = call.input.get("command") if call.name in _COMMAND_TOOLS else None
    return command if isinstance(command, str) else ""


def _is_check(call: ToolCall) -> bool:
    """A test, build, lint or type check, also through a task runner (`mise run test:ci`)."""
    verdict = _verdict(call)
    if verdict is not None and verdict.kind.intent == ToolIntent.VALIDATE:
        return True
    return bool(_CHECK_WORD.search(_command(call)))


def _kind_key(call: ToolCall) -> Key:
    """What makes two calls 'the same kind': program and subcommand, or a write of the same file."""
    if call.name not in _COMMAND_TOOLS:
        path = call.input.get("file_path") or call.input.get("notebook_path")
        return ("file", path if isinstance(path, str) and path else call.name)
    verdict = _verdict(call)
    if verdict is None or not verdict.base:
        # An unknown program: named past what feeds it input (`yes | npx create-app` is `npx create-app`).
        unknown = _analyze(_command(call)).classification
        if unknown.base_command:
            return (call.name, unknown.base_command, *([unknown.subcommand] if unknown.subcommand else []))
        words = _command(call).split()
        return (call.name, words[0] if words else "")
    if verdict.subcommand:
        return (call.name, verdict.base, verdict.subcommand)
    if verdict.kind.what in ("runs a script", "runs inline code") and verdict.args:
        return (call.name, verdict.base, verdict.args[0])  # `python a.py` is not `python b.py`
    return (call.name, verdict.base)


def _record(
    session: Session,
    run: _Run,
    failure: _Open,
    success: int,
    texts: dict[str, list[Sentence]],
    verification: str,
) -> ErrorResolution:
    start = failure.first + 1 if failure.failing is not None else failure.first
    between = run.calls[start:success]
    # What the assistant said after the failure came back, up to and including the rerun's turn.
    said = [s for call in run.calls[start : success + 1] for s in texts.get(call.id, [])]
    root_cause = next(
        (
            s.text
            for s in said
            if _ROOT_CAUSE.search(s.prose) and not _HEDGED.search(s.prose) and not _ONLY_WHERE.search(s.prose)
        ),
        "",
    )
    explanation = next(
        (
            s.text
            for s in said
            if _FIX_SENTENCE.search(s.prose) and not _HEDGED.search(s.prose) and s.text != root_cause
        ),
        "",
    )
    key = _kind_key(failure.failing) if failure.failing is not None else _PASTED
    changed = _fix(session, between, key) or _changed_command(failure.failing, run.calls[success])
    fix = ". ".join(part.rstrip(".") for part in (changed, explanation) if part)
    error = failure.line
    if failure.also:
        error = cut(
            f"{error} (also: {'; '.join(_short(line) for line in failure.also)})", ERROR_LIMIT + _ALSO_LIMIT
        )
    return ErrorResolution(
        error=error,
        root_cause=cut(root_cause, _FIX_LIMIT),
        fix=cut(fix, _FIX_LIMIT),
        verification=verification,
    )


def _changed_command(failing: ToolCall | None, passing: ToolCall) -> str:
    """With nothing changed in between, the fix was the command itself (`git commit
    --no-gpg-sign`, the same command without the `rtk` wrapper)."""
    if failing is None or passing.name not in _COMMAND_TOOLS:
        return ""
    before, after = _bare(_command(failing)), _bare(_command(passing))
    if not after or before == after:
        return ""
    return f"Ran `{cut(after, 80)}` instead of `{cut(before, 80)}`"


def _short(line: str) -> str:
    """A further failing line named in passing: its error code when it has one, else its message."""
    code = _CODE.search(line)
    return code.group(0) if code else cut(_POSITION.sub("", line), 80)


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


def _fix(session: Session, between: list[ToolCall], failing_key: Key) -> str:
    """The edits (and state-changing commands) made between the failure and the success."""
    edited: dict[str, None] = {}
    created: dict[str, None] = {}
    commands: list[str] = []
    for call in between:
        path = written_file(call)
        if path is not None:
            structured = (call.result.structured if call.result else None) or {}
            is_new = call.name == "Write" and structured.get("type") == "create"
            (created if is_new else edited).setdefault(relative_path(path, session.project_root), None)
            continue
        if call.name not in _COMMAND_TOOLS or failure_lines(call) != [] or _kind_key(call) == failing_key:
            continue
        verdict = _verdict(call)
        if verdict is not None and (
            verdict.kind.intent in _CHANGING
            or verdict.kind.what == "stops processes"
            or (verdict.base == "git" and verdict.subcommand == "pull")  # takes in the remote's work
        ):
            commands.append(f"ran `{cut(_bare(_command(call)), 80)}`")
    parts = [_named("Edited", list(edited)), _named("Created", list(created))]
    parts += commands[:_MAX_COMMANDS_NAMED]
    text = "; ".join(p for p in parts if p)
    return text[:1].upper() + text[1:]


def _named(verb: str, paths: list[str]) -> str:
    if not paths:
        return ""
    shown = ", ".join(paths[:_MAX_FILES_NAMED])
    more = len(paths) - _MAX_FILES_NAMED
    return f"{verb} {shown}" + (f" and {more} more files" if more > 0 else "")


def _verification(session: Session, call: ToolCall) -> str:
    """The succeeding call, with test counts when its output states them."""
    if call.name not in _COMMAND_TOOLS:
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


_SIGNATURE_NOISE = (
    (
        re.compile(
            r"(?:[A-Za-z]:)?[\w.@~+-]*(?:[\\/][\w.@~+-]+)+[\\/]?|\b[\w-]+\.[A-Za-z]{1,5}(?=[:('\"\s]|$)"
        ),
        "<path>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|\b[0-9a-f]{7,40}\b"
        ),
        "<id>",
    ),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
)


def error_signature(error: str) -> str:
    """What makes two errors the same error across sessions: its code or exception type, plus the
    message with paths, addresses, ids and numbers taken out: the same failure on another line,
    port or file is the same error; another missing module is not."""
    line = error.split(" (also: ", 1)[0].split(" / ", 1)[0]
    code = _CODE.search(line)
    message = _POSITION.sub("", line)
    for pattern, token in _SIGNATURE_NOISE:
        message = pattern.sub(token, message)
    message = " ".join(message.lower().split())
    return f"{code.group(0)} {message}" if code else message
