"""Which lines of a failure's output say what failed: the most telling lines of its output (a
diagnostic, an exception, a panic, a failed test with its report, errors told in words), the
errors a user pasted, and the signature that makes two failing lines of a session one error.
The forms only one tool prints (a test runner's report, a panic, PowerShell's error views) are
read by `reports`; whether a call failed at all is `verdict`'s."""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from .._sentences import cut
from .linters import RULED_HEADING, positioned
from .reports import (
    _FAILED_TEST,
    _cause,
    _jest_cases,
    _panics,
    _powershell,
    _with_message,
    failed_cases,
    go_leaves,
    go_logged,
    unhandled,
    unittest_failure,
    with_listed,
)

ERROR_LIMIT = 200
_MAX_RECORDS_PER_RUN = 5  # distinct failing lines of one run kept as records; the rest are named

# The harness stopping a command at its time limit: Claude Code's `Command timed out after 2m 0.0s`,
# Codex's `Exit code 124` then `command timed out after 10019 milliseconds`.
_TIMED_OUT = re.compile(
    r"\A\s*(?:Exit code 124\s+)?([Cc]ommand timed out(?: after \d+(?:\.\d+)?\s*[a-z]+(?: \d+(?:\.\d+)?[a-z]+)?)?)"
)
_EXIT_CODE = re.compile(r"\AExit code (-?\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\^\[\[[0-9;]*m")
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")

# Failing lines, most telling first. A diagnostic names a file position or an error code.
_TAG = r"(?:\[ERROR\]\s+)?"  # Maven's tag before a diagnostic
_DIAGNOSTIC = re.compile(
    rf"^\s*{_TAG}(?:vet: )?(?:\S+\.[A-Za-z]{{1,5}}:\d+(?::\d+)?:|\S+\.[A-Za-z]{{1,5}}\(\d+,\d+\):|\S+\.java:\[\d+,\d+\])\s*"
    r"(?!warning\b|note\b|info\b|hint\b|in\s|[:#]|\d+:?\s*$)(?:error\b:?\s*)?\S.*$"
    r"|^\s*error\[E\d+\]:\s+\S.*$"
    r"|^.*\berror TS\d+:.*$",
    re.IGNORECASE,
)
# pytest's short summary: the failed test and what it reported, on one line.
_PYTEST_SUMMARY = re.compile(r"^((?:FAILED|ERROR) \S+ - \S.*)$")
# Maven Surefire's: `[ERROR]   CalcTest.adds:5 1 + 2 ==> expected: <3> but was: <-1>` under
# `[ERROR] Failures:` or `[ERROR] Errors:`.
_SUREFIRE_SUMMARY = re.compile(r"^\[ERROR\] {2,}(\w[\w.$]*:\d+ \S.*)$")
_PYTEST_E = re.compile(r"^E\s+((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit)\b.*)$")
_EXCEPTION = re.compile(
    r"^\s*((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?: \[\w+\])?(?::.*|\s*))$"
    r"|^\s*(\S+: No module named .*)$"
)
_REPORTED = re.compile(
    r"^\s*((?:remote: )?(?:error|fatal|npm ERR!|ERROR|Error|FATAL)[:!]?\s+\S.*|CONFLICT \(.*|\[ERROR\]\s+\S.*|"
    r"Would reformat:? .*|.*\bneeds? (?:to be )?formatt(?:ed|ing)\b.*|.*\bBuild error occurred\b.*|.*\bfailed to (?:push|compile|build)\b.*|"
    r"! \[(?:remote )?rejected\]\s.*|ssh: \S.*|Type error: \S.*|Jest: .*\bcoverage threshold\b.*\bnot met\b.*|"
    # a program's system error (`chmod: changing permissions of 'x': Operation not permitted`);
    # a missing file, one already there or a folder not empty is looking or tidying, not failing
    r"[\w.+-]+: .+: (?:Operation not permitted|Permission denied|Read-only file system|No space left on device|"
    r"Device or resource busy|Text file busy|Disk quota exceeded|Too many open files))$"
)
# Git's conclusions after the reason it printed above them (`! [rejected] … (fetch first)`, `ssh:
# Could not resolve hostname …`): kept, but after the reason.
_CONCLUSION = re.compile(
    r"failed to push some refs|Could not read from remote repository|Please make sure you have the correct"
)
# The server's reasons listed under a `remote: error:` (GitHub's `remote:     - Push cannot contain
# secrets`); a bullet naming a commit or path is where, not why.
_REMOTE_REASON = re.compile(r"^remote:\s+- ([^:]+?)\s*$")
# Generic summaries that say "it failed" without saying what; used only when nothing better is there.
_VAGUE = re.compile(
    r"could not compile|aborting due to|Process completed with exit code|ERROR task failed|"
    r"^\s*(?:\[ERROR\]\s*(?:->|$|Re-run|To see|For more|Help)|FAIL\s*$|error: Recipe|make: \*\*\*|"
    r"npm ERR! (?:code|path|errno|syscall|command|A complete log|\s*$))|Found \d+ errors?|"
    r"\[(?:build|setup) failed\]|command finished with error|ERROR\s+run failed",
    re.IGNORECASE,
)
# A warning, or a notice that something is deprecated (printed before the real failure, or
# beside a success): never the failing line.
_WARNING = re.compile(
    r"^\s*(?:warning|warn|npm warn|\(node:\d+\) \w*Warning|\w*Warning:|WARN)\b"
    r"|^.{0,80}\b(?:is|are|has been|have been) deprecated\b",
    re.IGNORECASE,
)
_CODE = re.compile(r"\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b")
_LINTER = re.compile(r"\((?!typecheck\))[a-z][a-z0-9-]+\)$")  # golangci-lint's `… (errcheck)`
_POSITION = re.compile(rf"^\s*{_TAG}\S+?\.[A-Za-z]{{1,5}}(?::\d+(?::\d+)?:|\(\d+,\d+\):|:\[\d+,\d+\])\s*")

_STALL = re.compile(r"^`[^`]*` waited for an answer at an interactive prompt")
# sudo asking for a password it cannot get, however it says so: one error
_SUDO_PASSWORD = re.compile(r"^sudo: (?=a terminal is required|a password is required)")


def error_lines(text: str) -> list[str]:
    """The distinct failing lines of `text`, the most telling first (each cut to ERROR_LIMIT).

    The first of: pytest's or Maven Surefire's short summary (`FAILED t.py::test_a - AssertionError: …`: the test and
    what it reported, which a careful reader writes down together); Rust panics; failed tests with
    what their report says; diagnostics (a compiler's `file:line:col: message`, `error[E0308]`,
    `error TS2307`) in their order; the exception pytest reports (`E   ImportError: …`); a
    traceback's last exception; else the lines that report an error in words (`fatal: …`,
    `CONFLICT …`, `Would reformat: …`). Warnings and "could not compile"-style summaries are never
    chosen.
    """
    cleaned = _clean(text).splitlines()
    raw = _meaningful(cleaned)
    diagnostics = [
        line.strip()
        for line in raw
        if _DIAGNOSTIC.match(line) and not _VAGUE.search(line) and not RULED_HEADING.match(line)
    ]
    diagnostics += [
        f"{where}: {head}"
        for where, head in positioned(cleaned)
        if not _DIAGNOSTIC.match(head) and not _VAGUE.search(head)
    ]
    summaries = [m.group(1) for line in raw if (m := _PYTEST_SUMMARY.match(line.strip()))] + [
        m.group(1) for line in raw if (m := _SUREFIRE_SUMMARY.match(line))
    ]
    pytest_e = [m.group(1) for line in raw if (m := _PYTEST_E.match(line))]
    exceptions = [
        _with_detail(next(g for g in m.groups() if g), raw, at)
        for at, line in enumerate(raw)
        if (m := _EXCEPTION.match(line))
    ]
    panics = _panics(raw)
    tests = [m.group(1) for line in raw if (m := _FAILED_TEST.match(line))]
    if tests and not summaries:
        logged = go_logged(raw)
        tests = [
            case
            for test in go_leaves(tests)
            for case in _jest_cases(test, raw) or [_with_message(test, raw, logged)]
        ]
    tests = with_listed(tests, raw) + failed_cases(raw) + unhandled(raw) + unittest_failure(raw)
    # the last exception; said again at the end without the values it introduces, its fuller telling
    told = [e for e in reversed(exceptions) if e.startswith(exceptions[-1])] if exceptions else []
    tiers = (
        summaries,
        panics,
        tests,
        diagnostics,
        pytest_e,
        _powershell(raw),
        [max(told, key=len)] if told else [],
    )
    ordered = next((tier for tier in tiers if tier), [])
    return _distinct(ordered) if ordered else _told_in_words(raw)


def _meaningful_lines(text: str) -> list[str]:
    return _meaningful(_clean(text).splitlines())


def _meaningful(lines: list[str]) -> list[str]:
    """The lines that may say what failed: not blank, not a warning."""
    return [line.rstrip() for line in lines if line.strip() and not _WARNING.match(line)]


# Words of a headline that says only that something failed (`> Build error occurred`, `Error`,
# `Compilation failed!`): what failed is on the line after it.
_HEADLINE_WORDS = frozenset(
    {"a", "an", "the", "build", "compile", "compilation", "runtime", "fatal", "unhandled", "uncaught"}
    | {"internal", "syntax", "unknown", "error", "errors", "failure", "failed", "exception", "occurred"}
    | {"occured", "found", "detected", "encountered"}
)


def _is_headline(line: str) -> bool:
    words = re.findall(r"[a-z]+", line.lower())
    return bool(words) and len(words) <= 4 and all(w in _HEADLINE_WORDS for w in words)


def _with_detail(line: str, raw: list[str], at: int) -> str:
    """A headline with the line after it, which says what failed; any other line as it is."""
    if at + 1 < len(raw) and (line.endswith(":") or _is_headline(line)):
        return f"{line} {raw[at + 1].strip()}"
    return line


def _told_in_words(raw: list[str]) -> list[str]:
    """Lines that report an error in words tell one story (`error: gpg failed…` / `fatal: …`),
    each message once (`Error processing a.json: x` not again for b.json)."""
    told: dict[str, str] = {}
    remote_error = False
    for at, line in enumerate(raw):
        m = _REPORTED.match(line)
        reason = _REMOTE_REASON.match(line) if remote_error else None
        if m and not _VAGUE.search(line):
            said = _with_detail(m.group(1).strip(), raw, at)
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
_TASK = r"\[(?=[^\]\n]*[a-z])[\w:./@-]+\]"
_TASK_PREFIX = re.compile(rf"^{_TASK} ", re.MULTILINE)


def with_task(line: str, text: str) -> str:
    """`line` with the name of the task it came from (`[lint:gofmt] These .go files need to be
    formatted: …`) when a task runner tagged it in `text`: which check failed. The line is read
    without the tag; only the record shows it."""
    head = line[:30].rstrip("…")  # (a line given with the one it introduces starts the same)
    if not head or line.startswith("["):
        return line
    text = _ANSI.sub("", text)
    # (at a line's start, or after a CI log's job, step and time)
    tagged = re.search(rf"(?:^|[\t ])({_TASK}) +{re.escape(head)}", text, re.MULTILINE)
    return f"{tagged.group(1)} {line}" if tagged else line


# A GitHub Actions log line as `gh run view --log` prints it: job, step and time before the line.
_CI_LOG_PREFIX = re.compile(r"^[^\t\n]+\t[^\t\n]+\t\ufeff?\d{4}-\d\d-\d\dT[\d:.]+Z ?", re.MULTILINE)


# A workspace runner's name for the package and script each line comes from: pnpm's recursive run
# (`packages/web test: `, its echo `packages/web test$ vitest run`), Turborepo (`@app/web:test: `),
# Compose (`web-1  | `). Taken off only when one such prefix begins most lines: a diagnostic's
# position (`src/a.ts:12:3: `) differs from line to line and names no script.
_RUNNER_PREFIX = re.compile(r"^(?:(?:[\w@.-]+/)*[\w@.-]+[ :][A-Za-z][\w:.-]*(?:: |\$ )|[\w.-]+-\d+\s+\| )")


def _clean(text: str) -> str:
    text = _CI_LOG_PREFIX.sub("", _TOOL_ERROR_TAG.sub("", _ANSI.sub("", text)).replace("\r", ""))
    return _without_runner_prefix(_TASK_PREFIX.sub("", text))


def _without_runner_prefix(text: str) -> str:
    lines = text.split("\n")
    prefixes = Counter(m.group(0).rstrip("$ :|") for line in lines if (m := _RUNNER_PREFIX.match(line)))
    if not prefixes:
        return text
    prefix, count = prefixes.most_common(1)[0]
    if count < 3 or count * 2 < sum(1 for line in lines if line.strip()):
        return text
    return "\n".join(
        line[m.end() :] if (m := _RUNNER_PREFIX.match(line)) and m.group(0).rstrip("$ :|") == prefix else line
        for line in lines
    )


# A line that says in words that something failed, for output with no line of a known form.
_SAYS_FAILED = re.compile(
    r"(?i)\b(?:error|errors|fail(?:ed|ure|s)?|denied|refused|rejected|cannot|can't|could not|couldn't|"
    r"unable|not found|no such|invalid|missing|timed? ?out|exception|panic|fatal|unauthori[sz]ed|"
    r"forbidden|conflict|abort(?:ed)?|not permitted|not allowed|no (?:\w+ ){1,3}found|"
    r"exit(?:ing|ed)? with (?:exit )?code [1-9]\d*)\b"
)


def _telling_line(text: str) -> str:
    """The last line of a failure's output that says what failed in words: output opens with
    banners and echoes of the command and ends with its conclusion."""
    raw = _meaningful_lines(text)
    for at in range(len(raw) - 1, -1, -1):
        stripped = raw[at].strip()
        if _SAYS_FAILED.search(stripped) and not _EXIT_CODE.match(stripped) and not _VAGUE.search(stripped):
            return _with_detail(stripped, raw, at)
    return ""


# A package manager's echo of the script it runs (`> app@1.0.0 lint`, then `> next lint`).
_SCRIPT_ECHO = re.compile(r"^> \S")


def _first_line(text: str) -> str:
    """The first line that is not the exit code, a warning or a script's echo; one ending in ':'
    with the line it introduces (`The following paths are ignored …:` and the path)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for at, stripped in enumerate(lines):
        if (
            not _EXIT_CODE.match(stripped)
            and not _WARNING.match(stripped)
            and not _SCRIPT_ECHO.match(stripped)
        ):
            return (
                f"{stripped} {lines[at + 1]}" if stripped.endswith(":") and at + 1 < len(lines) else stripped
            )
    return ""


def _signature(line: str) -> str:
    """What makes two failing lines the same error: the same error code or linter rule, else the
    same message once file positions, times, ports and long ids are left out (a small number
    stays: `test_broken_5` is not `test_broken_15`); a program's prompts are one stall."""
    stall = _STALL.match(line) or _SUDO_PASSWORD.match(line)
    if stall:
        return stall.group(0)
    code = _CODE.search(line) or _LINTER.search(line)
    if code:
        return code.group(0)
    message = re.sub(r"(?<!\s)\s*\(typecheck\)$", "", _POSITION.sub("", line))  # one pass over spaces
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
