"""Whether a call's result says the work failed, and with which lines: a failing command told from
a lookup, a refusal, a hiccup or a command the shell could not run; errors a command reported while
exiting 0; a command stalled at a prompt. The lines themselves are read by `lines`."""

from __future__ import annotations

import re

from graphiti_session_tracking.tools.model import ToolIntent
from graphiti_session_tracking.transcripts import ToolCall, ToolKind

from .._sentences import cut
from .commands import _command, _is_check, _kind_key, _verdict, parts
from .lines import (
    _EXIT_CODE,
    _SUDO_PASSWORD,
    _TIMED_OUT,
    _WARNING,
    ERROR_LIMIT,
    _clean,
    _distinct,
    _first_line,
    _is_headline,
    _meaningful_lines,
    _telling_line,
    _told_in_words,
    error_lines,
)

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
# A program refusing its own arguments says so without its name: `error: unrecognized subcommand 'bun'`.
_USAGE = re.compile(
    r"(?i)\b(?:unrecognized|unknown|unexpected|invalid) (?:sub)?(?:command|option|argument|flag)s?\b|"
    r"\bno such (?:sub)?command\b|\bunrecognized arguments\b"
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
    r"\b[1-9]\d* errors? (?:in|during)\b|^npm ERR!|^\[ERROR\] |^Would reformat|\bERROR task failed$|"
    r"^(?:curl: \(\d+\) .*|\w+ \"https?://\S+\": .*(?:timeout|refused|reset by peer|no such host).*)$"
    # linters' and formatters' totals (ESLint, ruff, Biome, black) and unmet coverage thresholds
    r"|^✖ [1-9]\d* problems? \([1-9]|^error: could not compile\b|^Found [1-9]\d* errors?\.?$|^[1-9]\d* files? would be reformatted\b|"
    r"\b[Cc]overage for \w+ \(\d+(?:\.\d+)?%\) does not meet\b|\bcoverage threshold for \w+ \(\d+(?:\.\d+)?%\) not met\b",
    re.MULTILINE,
)
_RAN_TESTS = re.compile(r"\b\d+ (?:passed|failed)\b|^(?:ok|FAIL|---)\s", re.MULTILINE)
# Failures the harness reports for a file tool that are the machine's, not the agent's.
_SYSTEM_ERROR = re.compile(
    r"\bEACCES\b|\bEPERM\b|permission denied|read-only file system|no space left", re.I
)


# The shell could not run the command at all (a program not installed, a script with Windows line
# endings, a path that is not there): the environment failed, whatever the command was for, and
# whether or not its exit status was recorded (Codex's code mode records none).
_COULD_NOT_RUN = re.compile(
    r"^(?:[\w./-]*(?:bash|zsh|sh|dash)(?::\d+)?: (?:line \d+: )?)?(?:[^:\n]+: )?command not found(?:: \S+)?$"
    r"|^[\w./-]+: line \d+: .+: (?:command not found|No such file or directory)$"
    r"|^/usr/bin/env: .+: No such file or directory$"
    r"|^[\w./-]*(?:bash|zsh|sh|dash)(?::\d+)?: (?:line \d+: )?[\w./-]+: (?:No such file or directory|Permission denied)$"
    r"|^.*: bad interpreter: .*$"
    rf"|{_SUDO_PASSWORD.pattern}.*$|^sudo: (?:\d+ incorrect password attempts?|.+ is not in the sudoers file).*$",
    re.MULTILINE,
)


# The shell could not parse the command line itself (a quoting slip): a typo, not the work failing;
# a script's own syntax error (`run.sh: line 30: syntax error …`) is the work's.
_UNPARSED = re.compile(
    r"(?<![\w.-])(?:ba|z|da)?sh: -c: line \d+: (?:syntax error near unexpected token|unexpected EOF while looking)|"
    r"^\(eval\):\d+: parse error near",
    re.MULTILINE,
)
# Reading a CI run's log or checks: the work failing on another machine, whatever the exit code.
_READS_CI = re.compile(r"\bgh\s+(?:run\s+(?:view|watch)|pr\s+checks)\b|\bglab\s+ci\s+(?:view|trace|status)\b")
# A check run on the code as it was before the fix (`git show HEAD~1:a.go > a.go && go test …`,
# `git stash && pytest`): proving that a new test catches the bug.
_OLD_CODE_CHECKED = re.compile(
    r"\bgit\s+(?:show\s+[^\s:]+:\S+\s*>\s*\S+|checkout\s+\S+\s+--\s+\S+|restore\s+--source[=\s]\S+\s+\S+|"
    r"stash(?:\s+push)?(?:\s+-\S+)*)\s*(?:&&|;)"
)
# A CI run or job read back by its number (`gh run view 28943891068 --log-failed`, `glab ci trace 123`).
_CI_RUN = re.compile(
    r"\b(?:gh\s+run\s+(?:view|watch)|glab\s+ci\s+(?:view|trace|status))\b[^|;&\n]*?\b(\d{3,})\b"
)
# A run started again under its number: what reading that number prints may change after it.
_CI_RERUN = re.compile(r"\bgh\s+run\s+rerun\b|\bglab\s+ci\s+retry\b")


# failure_lines of the calls judged last: the walk, the fix and the bypass rule each ask of the
# same calls. Entries hold the call and its result, so neither's id can be reused while cached.
_JUDGED: dict[int, tuple[ToolCall, object, list[str] | None]] = {}
_JUDGED_MAX = 1024


def forget_judged() -> None:
    """Start a session afresh: the cache keeps no earlier session's calls (nor their spill files)."""
    _JUDGED.clear()


def failure_lines(call: ToolCall) -> list[str] | None:
    """The distinct failing lines of a failed command; [] when it succeeded; None when it says
    nothing about the work (no result, not a command, a refusal, a lookup, a hiccup)."""
    known = _JUDGED.get(id(call))
    if known is not None and known[0] is call and known[1] is call.result:
        return None if known[2] is None else list(known[2])
    lines = _failure_lines(call)
    if len(_JUDGED) >= _JUDGED_MAX:
        del _JUDGED[next(iter(_JUDGED))]
    _JUDGED[id(call)] = (call, call.result, None if lines is None else list(lines))
    return lines


def _failure_lines(call: ToolCall) -> list[str] | None:
    result = call.result
    if result is None:
        return None
    if call.kind is not ToolKind.COMMAND:
        line = _first_line(_clean(result.text))
        if result.is_error and _SYSTEM_ERROR.search(line):
            return [cut(line, ERROR_LIMIT)]  # a Write refused by the file system
        return [] if _kind_key(call)[1] != call.name else None
    text = _clean(result.text)
    if _NOT_AN_ERROR.search(text[:500]) or _UNPARSED.search(text[:1000]):
        return None
    could_not_run = [cut(m.group(0).strip(), ERROR_LIMIT) for m in _COULD_NOT_RUN.finditer(text)]
    if could_not_run:
        return _distinct(could_not_run)
    if _READS_CI.search(_command(call)):
        return error_lines(text)  # the work's failure, read back from CI; none printed: it passed
    if only_looks(call):
        return _looking_failed(call, text)
    if _OLD_CODE_CHECKED.search(_command(call)) and _is_check(call):
        return None  # the fix taken out to see the new test fail: meant to fail, not the work failing
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
    waited = _waited(call, text)
    if waited is not None:
        return [waited]  # it failed for want of an answer: the question is what stopped it
    said = _telling_line(text) or _first_line(text)
    if not said or _HICCUP.search(text) or _is_headline(said):
        return None  # a failure that names nothing ("Error"), or a missing file: not the work failing
    line = cut(said, ERROR_LIMIT)
    return [line if _FAILED_OUTPUT.search(said) else Unnamed(line)]  # `curl: (7) Failed to connect …`


# A remote a lookup could not reach (`git ls-remote`, `gh pr view`): the network or the credentials
# failed, not the looking. Which lines it says so in is `error_lines`' to tell (the reason first).
_UNREACHABLE = re.compile(
    r"^(?:ssh: .*\b(?:resolve|connect to host|Connection (?:refused|reset|timed out|closed)|unreachable)\b.*"
    r"|.*\bPermission denied \(publickey\b.*"
    r"|fatal: (?:unable to access '[^']*': .*|Authentication failed for .*|could not read (?:Username|Password) for .*"
    r"|repository '[^']*' not found|Could not read from remote repository\.?)"
    r"|error connecting to \S+.*)$",
    re.MULTILINE | re.IGNORECASE,
)


# Following a log (`tail -f`, `journalctl -f`, `docker logs --follow`) runs until it is stopped.
_FOLLOWS = re.compile(r"\b(?:tail|journalctl|logs)\b[^|;&\n]*\s(?:-[a-zA-Z]*[fF][a-zA-Z]*|--follow)\b")


def _looking_failed(call: ToolCall, text: str) -> list[str] | None:
    """A lookup says nothing about the work (`grep` finding nothing, `ls` of a missing folder is
    looking), unless it never finished or never reached its remote: then the session had to find
    another way, and a reader counts it (a `grep -R` over a whole disk stopped at the time limit)."""
    timed_out = _TIMED_OUT.match(text)
    if timed_out and _FOLLOWS.search(_command(call)):
        return None  # a log followed until the time limit: it was meant to run on
    if timed_out:
        program = _kind_key(call)[1]
        return [cut(f"{program}: {timed_out.group(1)}" if program else timed_out.group(1), ERROR_LIMIT)]
    reason = _UNREACHABLE.search(text)
    if reason is None:
        return None
    return error_lines(text) or [cut(reason.group(0).strip(), ERROR_LIMIT)]  # read as a fetch's would be


class Unnamed(str):
    """A failing line chosen for want of any form that names a failure (the last line saying
    "failed", else the first line): the call failed, but whether this line is its error is a
    guess, right about a time in five when the session never got past it (bench/fidelity.py)."""

    __slots__ = ()


# What a part of a lookup's command line may do besides reading or searching: filter (`| head`).
_LOOKING = (ToolIntent.READ, ToolIntent.SEARCH, ToolIntent.TRANSFORM)


def only_looks(call: ToolCall) -> bool:
    """A shell command that reads or searches (`sed -n`, `cat`, `rg`, `ls`): what it printed is
    what the agent looked at, not what the work did; reading a CI run's log is the work's."""
    if call.kind is not ToolKind.COMMAND or _READS_CI.search(_command(call)):
        return False
    verdict = _verdict(call)
    if verdict is None or verdict.kind.intent not in (ToolIntent.READ, ToolIntent.SEARCH):
        return False
    # every part looks: `ls -l x && chmod 644 x` changes something, and its failure is the work's
    return all(
        part is not None and (part.kind.significance == 0 or part.kind.intent in _LOOKING)
        for _, part in parts(call)
    )


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


# A question left waiting for an answer: `? Use src/? › No / Yes`, `Continue? [y/N]`; or a
# question (`? How would you like to configure ESLint?`) over the list of its choices.
_PROMPT = re.compile(r"^\s*\?\s+\S.*\?.*›|(?:\(y/n\)|\[y/n\]|\(yes/no\)|\[yes/no\])\s*:?\s*$", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*\?\s+\S.*\?")
_CHOICE = re.compile(r"^(?:\s|\s*[❯›>○◯●◉◻◼]\s)")
_CHOICES_MAX = 8


def _stalled(call: ToolCall) -> str | None:
    """The prompt a command stopped at, when its output ends on a question nobody answered (a
    scaffolder asking for options in a shell with no input): it did not run, though it exited 0."""
    result = call.result
    if call.kind is not ToolKind.COMMAND or result is None or result.is_error:
        return None
    return _waited(call, _clean(result.text))


def _waited(call: ToolCall, text: str) -> str | None:
    """ "`program` waited for an answer at an interactive prompt: <the question>" when the output
    ends on a question (alone, or over its choices), else None."""
    lines = [line for line in text.splitlines() if line.strip() and not _WARNING.match(line)]
    question = None
    if lines and _PROMPT.search(lines[-1]):
        question = lines[-1]
    else:
        for back in range(2, min(_CHOICES_MAX, len(lines)) + 1):
            if _QUESTION.match(lines[-back]) and all(_CHOICE.match(line) for line in lines[1 - back :]):
                question = lines[-back]
                break
    if question is None or "✔" in question:
        return None
    program = " ".join(_kind_key(call)[1:])
    return cut(f"`{program}` waited for an answer at an interactive prompt: {question.strip()}", ERROR_LIMIT)


def failed_in_form_only(calls: list[ToolCall]) -> tuple[list[str], list[str]]:
    """The outputs of failed calls the rules judge to say nothing about the work (an editing
    hiccup, a refusal, `rm` of a missing file, `nothing to commit`), and the outputs of the
    failures they count. Lookups are in neither: a failing `gh pr view` or `sed` of a missing file
    is often an error to a careful reader. The LLM merge drops a model's row quoted only from the
    first (llm_merge.merge_errors)."""
    form_only: list[str] = []
    counted: list[str] = []
    for call in calls:
        result = call.result
        if result is None or call.kind in (ToolKind.READ, ToolKind.SEARCH, ToolKind.WEB) or only_looks(call):
            continue
        lines = failure_lines(call)
        if lines:
            counted.append(result.text)
        elif lines is None and result.is_error:
            form_only.append(result.text)
    return form_only, counted
