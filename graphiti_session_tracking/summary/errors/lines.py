"""Which lines of a call's output say what failed: a failing command told from a lookup, a
refusal or a hiccup, the most telling lines of its output, the errors a user pasted, and the
signature that makes two failing lines of a session one error."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import ToolCall, ToolKind

from .._sentences import cut
from .commands import _is_check, _kind_key, _verdict

ERROR_LIMIT = 200
_MAX_RECORDS_PER_RUN = 5  # distinct failing lines of one run kept as records; the rest are named

# Results that are "errors" only in form: the harness refusing a call, or the user saying no.
_NOT_AN_ERROR = re.compile(
    r"doesn't want to proceed|user rejected|rejected by (?:the )?user|\[Request interrupted|"
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
    r"(?!warning\b|note\b|info\b|hint\b|in\s|[:#]|\d+:?\s*$)(?:error\b:?\s*)?\S.*$"
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
    r"Would reformat:? .*|.*\bneeds? (?:to be )?formatt(?:ed|ing)\b.*|.*\bBuild error occurred\b.*|.*\bfailed to (?:push|compile|build)\b.*|"
    r"! \[(?:remote )?rejected\]\s.*|ssh: \S.*)$"
)
# Git's conclusions after the reason it printed above them (`! [rejected] … (fetch first)`, `ssh:
# Could not resolve hostname …`): kept, but after the reason.
_CONCLUSION = re.compile(
    r"failed to push some refs|Could not read from remote repository|Please make sure you have the correct"
)
# The server's reasons listed under a `remote: error:` (GitHub's `remote:     - Push cannot contain
# secrets`); a bullet naming a commit or path is where, not why.
_REMOTE_REASON = re.compile(r"^remote:\s+- ([^:]+?)\s*$")
# A program refusing its own arguments says so without its name: `error: unrecognized subcommand 'bun'`.
_USAGE = re.compile(
    r"(?i)\b(?:unrecognized|unknown|unexpected|invalid) (?:sub)?(?:command|option|argument|flag)s?\b|"
    r"\bno such (?:sub)?command\b|\bunrecognized arguments\b"
)
# A Rust panic since 1.73: `thread 'x' panicked at src/a.rs:3:5:` and the message on the next line.
_PANIC = re.compile(r"\bpanicked at (\S+:\d+:\d+):$")
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
    r"\b[1-9]\d* errors? (?:in|during)\b|^npm ERR!|^\[ERROR\] |^Would reformat|\bERROR task failed$",
    re.MULTILINE,
)
_RAN_TESTS = re.compile(r"\b\d+ (?:passed|failed)\b|^(?:ok|FAIL|---)\s", re.MULTILINE)
_COUNT = re.compile(r"\b(\d+) (passed|failed|skipped|ignored|errors?|xfailed|xpassed|deselected|warnings?)\b")
_CODE = re.compile(r"\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b")
_LINTER = re.compile(r"\((?!typecheck\))[a-z][a-z0-9-]+\)$")  # golangci-lint's `… (errcheck)`
_POSITION = re.compile(rf"^\s*{_TAG}\S+?\.[A-Za-z]{{1,5}}(?::\d+(?::\d+)?:|\(\d+,\d+\):|:\[\d+,\d+\])\s*")

# Failures the harness reports for a file tool that are the machine's, not the agent's.
_SYSTEM_ERROR = re.compile(
    r"\bEACCES\b|\bEPERM\b|permission denied|read-only file system|no space left", re.I
)


# The shell could not run the command at all (a program not installed, a script with Windows line
# endings, a path that is not there): the environment failed, whatever the command was for, and
# whether or not its exit status was recorded (Codex's code mode records none).
_COULD_NOT_RUN = re.compile(
    r"^(?:[\w./-]*(?:bash|zsh|sh|dash)(?::\d+)?: (?:line \d+: )?)?(?:[^:\n]+: )?command not found(?:: \S+)?$"
    r"|^[\w./-]+: line \d+: .+: command not found$"
    r"|^/usr/bin/env: .+: No such file or directory$"
    r"|^[\w./-]*(?:bash|zsh|sh|dash)(?::\d+)?: (?:line \d+: )?[\w./-]+: (?:No such file or directory|Permission denied)$"
    r"|^.*: bad interpreter: .*$",
    re.MULTILINE,
)


def failure_lines(call: ToolCall) -> list[str] | None:
    """The distinct failing lines of a failed command; [] when it succeeded; None when it says
    nothing about the work (no result, not a command, a refusal, a lookup, a hiccup)."""
    result = call.result
    if result is None:
        return None
    if call.kind is not ToolKind.COMMAND:
        line = _first_line(_clean(result.text))
        if result.is_error and _SYSTEM_ERROR.search(line):
            return [cut(line, ERROR_LIMIT)]  # a Write refused by the file system
        return [] if _kind_key(call)[1] != call.name else None
    text = _clean(result.text)
    if _NOT_AN_ERROR.search(text[:500]):
        return None
    could_not_run = [cut(m.group(0).strip(), ERROR_LIMIT) for m in _COULD_NOT_RUN.finditer(text)]
    if could_not_run:
        return _distinct(could_not_run)
    verdict = _verdict(call)
    if verdict is not None and verdict.kind.intent in (ToolIntent.READ, ToolIntent.SEARCH):
        return None  # `grep` finding nothing or `ls` of a missing folder is looking, not failing
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
        return [_named(call, line) for line in lines]
    first = _first_line(text)
    if not first or _HICCUP.search(text):
        return None  # a failure that names nothing, or a missing file: not the work failing
    return [cut(_telling_line(text) or first, ERROR_LIMIT)]


def _named(call: ToolCall, line: str) -> str:
    """A usage error with the program it came from (`rtk: error: unrecognized subcommand 'bun'`):
    the line alone does not say which program refused its arguments."""
    program = _kind_key(call)[1]
    if not program or not _USAGE.search(line) or program in line:
        return line
    return cut(f"{program}: {line}", ERROR_LIMIT)


def reported_lines(call: ToolCall) -> list[str]:
    """Errors a command of the work reported in words while exiting 0 (a script that logs each
    failure and goes on: `Error processing a.json: bad escape`); [] for a lookup, or when it only
    printed positions or stack frames (a hook's test logs)."""
    result = call.result
    if call.kind is not ToolKind.COMMAND or result is None or result.is_error:
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
    if call.kind is not ToolKind.COMMAND or result is None or result.is_error:
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
    panics = _panics(raw)
    tests = [m.group(1) for line in raw if (m := _FAILED_TEST.match(line))]
    if not (diagnostics or pytest_e or panics or exceptions) and tests:
        tests = [_with_message(test, raw) for test in tests]
    tiers = (diagnostics, pytest_e, panics, exceptions[-1:], tests)
    ordered = next((tier for tier in tiers if tier), [])
    return _distinct(ordered) if ordered else _told_in_words(raw)


# What a failed test's report says went wrong, on the lines after its name (`expect(received)…`,
# `Expected: 3`, `TypeError: …`, `assertion failed`).
_TEST_MESSAGE = re.compile(
    r"(?i)\b(?:error|expected|received|assert\w*|exception|panic\w*|timed? ?out|not (?:equal|found)|"
    r"mismatch\w*|undefined|cannot|failed to)\b"
)


def _with_message(test: str, raw: list[str]) -> str:
    """A failed test's line with what its report says on the lines after it: the case's title
    (Jest's `● cart › total`) and the lines that say what went wrong (`Expected: 30`,
    `Received: 25`), else the first line of the report that is not a stack frame: a careful reader
    writes down the test and what it reported."""
    at = next((i for i, line in enumerate(raw) if test in line), None)
    if at is None:
        return test
    title: list[str] = []
    said: list[str] = []
    plain: list[str] = []
    for line in raw[at + 1 : at + 10]:
        stripped = line.strip()
        if _FAILED_TEST.match(line) or _COUNT.search(stripped):
            break  # the next test's report, or the totals
        if stripped.startswith(("at ", "File ", "❯ ", "⎯", "---", "___", "===")):
            continue
        if stripped.startswith("●"):
            title = title or [stripped.lstrip("● ").strip()]
        elif _TEST_MESSAGE.search(stripped):
            said.append(cut(stripped, 160))
        elif not plain:
            plain.append(cut(stripped, 160))
    return " / ".join([test, *title, *(said[:3] or plain)])


def _panics(raw: list[str]) -> list[str]:
    """Each Rust panic as one line, its place and its message (printed on the line after it),
    and the deepest cause when the message goes on with a `Caused by:` chain."""
    panics = []
    for at, line in enumerate(raw[:-1]):
        m = _PANIC.search(line.strip())
        if m:
            cause = _cause(raw, at + 1)
            message = raw[at + 1].strip()
            panics.append(
                " / ".join([f"panicked at {m.group(1)}: {cut(message, 80) if cause else message}", *cause])
            )
    return panics


def _cause(raw: list[str], at: int) -> list[str]:
    """The deepest cause of the error on line `at` when a `Caused by:` chain follows it (anyhow,
    eyre, Java): the last line of the indented block under it, where the real failure is named."""
    for by in range(at + 1, min(at + 4, len(raw))):
        if raw[by].strip().rstrip(":") == "Caused by":
            block = []
            for line in raw[by + 1 : by + 16]:
                if not line[:1].isspace():
                    break
                block.append(line.strip())
            return [block[-1]] if block else []
    return []


def _meaningful_lines(text: str) -> list[str]:
    raw = [line.rstrip() for line in _clean(text).splitlines()]
    return [line for line in raw if line.strip() and not _WARNING.match(line)]


def _told_in_words(raw: list[str]) -> list[str]:
    """Lines that report an error in words tell one story (`error: gpg failed…` / `fatal: …`),
    each message once (`Error processing a.json: x` not again for b.json)."""
    told: dict[str, str] = {}
    remote_error = False
    for at, line in enumerate(raw):
        m = _REPORTED.match(line)
        reason = _REMOTE_REASON.match(line) if remote_error else None
        if m and not _VAGUE.search(line):
            said = m.group(1).strip()
            if said.endswith(":") and at + 1 < len(raw):  # what it names is on the next line
                said = f"{said} {raw[at + 1].strip()}"
            told.setdefault(_message_tail(said) or said, " / ".join([said, *_cause(raw, at)]))
            remote_error = remote_error or line.lstrip().startswith("remote: error")
        elif reason:
            told.setdefault(reason.group(1).lower(), reason.group(1))
    if not told:
        return []
    reasons = sorted(told.values(), key=lambda line: bool(_CONCLUSION.search(line)))  # stable
    return _distinct([" / ".join(reasons)])


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


# A task runner's name for the task each line comes from (mise's `[lint:go] `), so the line
# itself is read; Maven's upper-case `[ERROR]` tags are kept (they are part of its diagnostics).
_TASK_PREFIX = re.compile(r"^\[(?=[^\]\n]*[a-z])[\w:./@-]+\] ", re.MULTILINE)


def _clean(text: str) -> str:
    return _TASK_PREFIX.sub("", _TOOL_ERROR_TAG.sub("", _ANSI.sub("", text)).replace("\r", ""))


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


def _message_tail(line: str) -> str:
    """What a failing line says, past its position and the item it names (lowercase, times and
    ids as `#`); "" when too short to tell one error from another, or for a stall."""
    if _STALL.match(line):
        return ""
    message = _VOLATILE.sub("#", _POSITION.sub("", line).rstrip("…")).strip()
    tail = message.rsplit(": ", 1)[-1].strip()
    needle = tail if len(tail) >= 12 and " " in tail else message  # not a bare name: `…: 'config.yaml'`
    return " ".join(needle.lower().split()) if len(needle) >= 12 else ""
