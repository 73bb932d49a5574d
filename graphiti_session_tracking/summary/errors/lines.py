"""Which lines of a failure's output say what failed: the most telling lines of its output (a
diagnostic, an exception, a panic, a failed test with its report, errors told in words), the
errors a user pasted, and the signature that makes two failing lines of a session one error.
Whether a call failed at all is `verdict`'s."""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from .._sentences import cut

ERROR_LIMIT = 200
_MAX_RECORDS_PER_RUN = 5  # distinct failing lines of one run kept as records; the rest are named

_TIMED_OUT = re.compile(r"\A\s*Command timed out")
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
_PYTEST_E = re.compile(r"^E\s+((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit)\b.*)$")
_EXCEPTION = re.compile(
    r"^\s*((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)(?: \[\w+\])?(?::.*|\s*))$"
    r"|^\s*(\S+: No module named .*)$"
)
# A failed test: pytest, cargo, `go test -v`, and Jest's or Vitest's test file (`FAIL src/a.test.ts`,
# not Go's package line `FAIL  example.com/pkg  0.01s`, which only sums up the tests above it).
_FAILED_TEST = re.compile(
    r"^\s*(FAILED\s+\S.*|\S+::\S+ FAILED\b.*|test \S+ \.\.\. FAILED.*|--- FAIL: .*|"
    r"FAIL\s+\S+\.(?:[cm]?[jt]sx?|vue|svelte|py|rb)(?!\S).*)$"
)
_REPORTED = re.compile(
    r"^\s*((?:remote: )?(?:error|fatal|npm ERR!|ERROR|Error|FATAL)[:!]?\s+\S.*|CONFLICT \(.*|\[ERROR\]\s+\S.*|"
    r"Would reformat:? .*|.*\bneeds? (?:to be )?formatt(?:ed|ing)\b.*|.*\bBuild error occurred\b.*|.*\bfailed to (?:push|compile|build)\b.*|"
    r"! \[(?:remote )?rejected\]\s.*|ssh: \S.*|Type error: \S.*)$"
)
# Git's conclusions after the reason it printed above them (`! [rejected] … (fetch first)`, `ssh:
# Could not resolve hostname …`): kept, but after the reason.
_CONCLUSION = re.compile(
    r"failed to push some refs|Could not read from remote repository|Please make sure you have the correct"
)
# The server's reasons listed under a `remote: error:` (GitHub's `remote:     - Push cannot contain
# secrets`); a bullet naming a commit or path is where, not why.
_REMOTE_REASON = re.compile(r"^remote:\s+- ([^:]+?)\s*$")
# A Rust panic since 1.73: `thread 'x' panicked at src/a.rs:3:5:` and the message on the next line.
_PANIC = re.compile(r"\bpanicked at (\S+:\d+:\d+):$")
# Generic summaries that say "it failed" without saying what; used only when nothing better is there.
_VAGUE = re.compile(
    r"could not compile|aborting due to|Process completed with exit code|ERROR task failed|"
    r"^\s*(?:\[ERROR\]\s*(?:->|$|Re-run|To see|For more|Help)|FAIL\s*$|error: Recipe|make: \*\*\*|"
    r"npm ERR! (?:code|path|errno|syscall|command|A complete log|\s*$))|Found \d+ errors?|"
    r"\[(?:build|setup) failed\]|command finished with error|ERROR\s+run failed",
    re.IGNORECASE,
)
_WARNING = re.compile(
    r"^\s*(?:warning|warn|npm warn|\(node:\d+\) \w*Warning|\w*Warning:|WARN)\b", re.IGNORECASE
)
_COUNT = re.compile(r"\b(\d+) (passed|failed|skipped|ignored|errors?|xfailed|xpassed|deselected|warnings?)\b")
_CODE = re.compile(r"\b(?:E\d{4}|TS\d{4,5}|[A-Z]{2,}\d{3,}|ERR_[A-Z_]+)\b")
_LINTER = re.compile(r"\((?!typecheck\))[a-z][a-z0-9-]+\)$")  # golangci-lint's `… (errcheck)`
_POSITION = re.compile(rf"^\s*{_TAG}\S+?\.[A-Za-z]{{1,5}}(?::\d+(?::\d+)?:|\(\d+,\d+\):|:\[\d+,\d+\])\s*")

_STALL = re.compile(r"^`[^`]*` waited for an answer at an interactive prompt")


def error_lines(text: str) -> list[str]:
    """The distinct failing lines of `text`, the most telling first (each cut to ERROR_LIMIT).

    The first of: pytest's short summary (`FAILED t.py::test_a - AssertionError: …`: the test and
    what it reported, which a careful reader writes down together); Rust panics; failed tests with
    what their report says; diagnostics (a compiler's `file:line:col: message`, `error[E0308]`,
    `error TS2307`) in their order; the exception pytest reports (`E   ImportError: …`); a
    traceback's last exception; else the lines that report an error in words (`fatal: …`,
    `CONFLICT …`, `Would reformat: …`). Warnings and "could not compile"-style summaries are never
    chosen.
    """
    raw = _meaningful_lines(text)
    diagnostics = [line.strip() for line in raw if _DIAGNOSTIC.match(line) and not _VAGUE.search(line)]
    summaries = [m.group(1) for line in raw if (m := _PYTEST_SUMMARY.match(line.strip()))]
    pytest_e = [m.group(1) for line in raw if (m := _PYTEST_E.match(line))]
    exceptions = [next(g for g in m.groups() if g) for line in raw if (m := _EXCEPTION.match(line))]
    panics = _panics(raw)
    tests = [m.group(1) for line in raw if (m := _FAILED_TEST.match(line))]
    if tests and not summaries:
        tests = [case for test in tests for case in _jest_cases(test, raw) or [_with_message(test, raw)]]
    tiers = (summaries, panics, tests, diagnostics, pytest_e, _powershell(raw), exceptions[-1:])
    ordered = next((tier for tier in tiers if tier), [])
    return _distinct(ordered) if ordered else _told_in_words(raw)


# What a failed test's report says went wrong, on the lines after its name (`expect(received)…`,
# `Expected: 3`, `TypeError: …`, `assertion failed`).
_TEST_MESSAGE = re.compile(
    r"(?i)\b(?:error|expected|received|assert\w*|exception|panic\w*|timed? ?out|not (?:equal|found)|"
    r"mismatch\w*|undefined|cannot|failed to)\b"
)


# The legend of an expected/received diff (`- Expected`, `+ Received`): the values are below it.
_DIFF_LEGEND = re.compile(r"^[-+] (?:Expected|Received)\b(?!:)")

# Another test's result in a verbose listing: `tests/t.py::test_b PASSED`, `✓ adds`, `ok  pkg 0.3s`.
_OTHER_RESULT = re.compile(r"\bPASS(?:ED)?\b|^(?:✓|√|ok\s)")


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
        if _FAILED_TEST.match(line) or _COUNT.search(stripped) or _OTHER_RESULT.search(stripped):
            break  # the next test's report, or the totals
        if stripped.startswith(("at ", "File ", "❯ ", "⎯", "---", "___", "===")) or _DIFF_LEGEND.match(
            stripped
        ):
            continue
        if stripped.startswith("●"):
            title = title or [stripped.lstrip("● ").strip()]
        elif _TEST_MESSAGE.search(stripped):
            said.append(cut(stripped, 160))
        elif not plain:
            plain.append(cut(stripped, 160))
    return " / ".join([test, *title, *(said[:3] or plain)])


# Jest's file line (`FAIL src/cart.test.js`, no case after it), the end of that file's report (the
# next file's line, the totals), and the lines of a case's report that show code, not what failed.
_JEST_FILE = re.compile(r"^FAIL\s+\S+$")
_JEST_END = re.compile(r"^(?:PASS|FAIL)\s+\S|^(?:Tests|Test Suites|Snapshots|Time):\s")
_CODE_FRAME = re.compile(r"^>?\s*\d*\s*\|")


def _jest_cases(test: str, raw: list[str]) -> list[str]:
    """Each failed case of a Jest file line, as its `● suite › case` block tells it (the case and
    what its report says), wherever the block sits after the verbose listing (`✓ adds`, `✕ subtracts`):
    one row per case, as a careful reader writes them. [] when `test` is not a Jest file line or
    its report holds no block."""
    if not _JEST_FILE.match(test):
        return []
    at = next((i for i, line in enumerate(raw) if line.strip() == test), None)
    if at is None:
        return []
    blocks: list[list[str]] = []
    for line in raw[at + 1 :]:
        stripped = line.strip()
        if _JEST_END.match(stripped):
            break
        if stripped.startswith("●"):
            blocks.append([stripped.lstrip("● ").strip()])
        elif blocks and not (
            _CODE_FRAME.match(stripped) or _DIFF_LEGEND.match(stripped) or stripped.startswith("at ")
        ):
            blocks[-1].append(stripped)
    cases = []
    for title, *report in blocks:
        said = [cut(line, 160) for line in report if _TEST_MESSAGE.search(line)]
        cases.append(" / ".join([test, title, *(said[:3] or [cut(line, 160) for line in report[:1]])]))
    return cases


# PowerShell 7's error view: a head (`Exception: C:\s\land.ps1:45:5`, `Get-Content:`), `Line |`, the
# code under a line number, a `~~~` underline, and the message on the `| ` lines after it. Windows
# PowerShell's: `C:\s\land.ps1 : message` over `At line:1 char:1` (or `At C:\s\land.ps1:45 char:5`).
_PS_LINE = re.compile(r"^\s*Line \|$")
_PS_MESSAGE = re.compile(r"^\s*\|\s+(?!~)(\S.*)$")
_PS_CODE = re.compile(r"^\s*\d+ \|")
_PS5_ERROR = re.compile(r"^(\S.*?) : (\S.*)$")
_PS5_AT = re.compile(r"^\s*At (?:line:\d+|\S.*:\d+) char:\d+$")


def _powershell(raw: list[str]) -> list[str]:
    """Each error PowerShell reported, as its head and its message (`Exception: …\\land.ps1:45:5 /
    Working tree is not clean`): the message sits below the code it points at, in no form the
    other readers know."""
    found = []
    for at, line in enumerate(raw):
        if _PS_LINE.match(line) and at > 0:
            message = []
            for follow in raw[at + 1 : at + 12]:
                if _PS_CODE.match(follow) or follow.strip().lstrip("|").strip().startswith("~"):
                    continue
                m = _PS_MESSAGE.match(follow)
                if m is None:
                    break
                message.append(m.group(1).strip())
            if message:
                found.append(" / ".join([raw[at - 1].strip().rstrip(":"), " ".join(message)]))
        elif at + 1 < len(raw) and _PS5_AT.match(raw[at + 1]) and (m5 := _PS5_ERROR.match(line.strip())):
            found.append(f"{m5.group(1)} : {m5.group(2)}")
    return found


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
_TASK_PREFIX = re.compile(r"^\[(?=[^\]\n]*[a-z])[\w:./@-]+\] ", re.MULTILINE)


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
    r"forbidden|conflict|abort(?:ed)?|not permitted|not allowed)\b"
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
    for line in text.splitlines():
        stripped = line.strip()
        if (
            stripped
            and not _EXIT_CODE.match(stripped)
            and not _WARNING.match(stripped)
            and not _SCRIPT_ECHO.match(stripped)
        ):
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
