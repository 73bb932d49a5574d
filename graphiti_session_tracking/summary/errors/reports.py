"""What a tool's own report of a failure says, in the forms only that tool prints: a failed test
with its report (Jest's `● suite › case` blocks, pytest's, Go's, Vitest's), a Rust panic and the
deepest cause of a `Caused by:` chain, PowerShell's error views. `lines` picks among them."""

from __future__ import annotations

import re

from .._sentences import cut

# A failed test: pytest, cargo, `go test -v`, and Jest's or Vitest's test file (`FAIL src/a.test.ts`,
# not Go's package line `FAIL  example.com/pkg  0.01s`, which only sums up the tests above it).
_FAILED_TEST = re.compile(
    r"^\s*(FAILED\s+(?!\()\S.*|\S+::\S+ FAILED\b.*|test \S+ \.\.\. FAILED.*|--- FAIL: .*|"
    r"FAIL\s+\S+\.(?:[cm]?[jt]sx?|vue|svelte|py|rb)(?!\S).*)$"
)
_COUNT = re.compile(r"\b(\d+) (passed|failed|skipped|ignored|errors?|xfailed|xpassed|deselected|warnings?)\b")
# A Rust panic since 1.73: `thread 'x' panicked at src/a.rs:3:5:` and the message on the next line.
_PANIC = re.compile(r"\bpanicked at (\S+:\d+:\d+):$")


# What a failed test's report says went wrong, on the lines after its name (`expect(received)…`,
# `Expected: 3`, `TypeError: …`, `assertion failed`).
_TEST_MESSAGE = re.compile(
    r"(?i)\b(?:error|expected|received|actual|assert\w*|exception|panic\w*|timed? ?out|not (?:equal|found)|"
    r"mismatch\w*|undefined|cannot|failed to)\b"
)


# The legend of an expected/received diff (`- Expected`, `+ Received`): the values are below it.
_DIFF_LEGEND = re.compile(r"^[-+] (?:Expected|Received)\b(?!:)")

# Another test's result in a verbose listing: `tests/t.py::test_b PASSED`, `✓ adds`, `ok  pkg 0.3s`.
_OTHER_RESULT = re.compile(r"\bPASS(?:ED)?\b|^(?:✓|√|ok\s)")


def _with_message(test: str, raw: list[str], logged: dict[str, list[str]]) -> str:
    """A failed test's line with what its report says on the lines after it: the case's title
    (Jest's `● cart › total`) and the lines that say what went wrong (`Expected: 30`,
    `Received: 25`), else the first line of the report that is not a stack frame: a careful reader
    writes down the test and what it reported. `go test -v` prints what a test logged above its
    result, under the test's `=== RUN` line (`logged`, by test: `go_logged`)."""
    at = next((i for i, line in enumerate(raw) if test in line), None)
    said = [] if at is None else _report(raw, at)
    if not said and (go := _GO_FAIL.match(test)):
        said = logged.get(go.group(1), [])[:3]
    return " / ".join([test, *said])


# Go's failed test (`--- FAIL: TestParse/empty (0.00s)`), the `=== RUN` line that opens what a test
# logs under `-v`, and the lines that sum up a package (`FAIL`, `FAIL  example.com/pkg  0.01s`).
_GO_FAIL = re.compile(r"^\s*--- FAIL: (\S+)")
_GO_RUN = re.compile(r"^=== (?:RUN|PAUSE|CONT|NAME)\s+(\S+)\s*$")
_GO_PACKAGE = re.compile(r"^(?:FAIL|ok)(?:\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\)|\[[^\]]*\]))?$")


_GO_DEPTH = 8  # subtests nest a few levels; a name with more slashes is not walked to its end


def go_leaves(tests: list[str]) -> list[str]:
    """The failed tests without a Go test that failed only through its subtests (`TestParse`
    over `TestParse/empty`): a reader writes down the subtest that failed, not its parent too."""
    parents = {
        "/".join(parts[:depth])
        for test in tests
        if (m := _GO_FAIL.match(test))
        for parts in (m.group(1).split("/", _GO_DEPTH),)
        for depth in range(1, len(parts))
    }
    return [test for test in tests if not ((m := _GO_FAIL.match(test)) and m.group(1) in parents)]


def go_logged(raw: list[str]) -> dict[str, list[str]]:
    """What each Go test logged under its `=== RUN` line (`p_test.go:11: failed to parse …`),
    read in one pass."""
    logged: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in raw:
        if run := _GO_RUN.match(line):
            current = logged.setdefault(run.group(1), [])
        elif line.lstrip().startswith("--- ") or _GO_PACKAGE.match(line.strip()):
            current = None
        elif current is not None and line.strip() and len(current) < 3:
            current.append(cut(line.strip(), 160))
    return logged


# Not what failed: where a report points (bats' `# (from function …`, `#  in test file …`) and a
# YAML key whose text is on the lines below it (TAP's `error: |-`).
_REPORT_FRAME = re.compile(r"^(?:\(from function |in test file |\w+: [|>][-+]?$)")


def _report(raw: list[str], at: int) -> list[str]:
    """What the report under line `at` says went wrong: a case's title (`● cart › total`) and at
    most three lines naming the failure (one ending in ":" with the line it introduces), else its
    first plain line; [] when the next test or the totals come first."""
    title: list[str] = []
    said: list[str] = []
    plain: list[str] = []
    lines = raw[at + 1 : at + 12]
    joined = -1  # a line said with the one before it, which ended in ":"
    for i, line in enumerate(lines):
        stripped = line.strip()
        if (
            _FAILED_TEST.match(line)
            or _CASE.match(line)
            or _COUNT.search(stripped)
            or _OTHER_RESULT.search(stripped)
            or (stripped.startswith("⎯") and stripped.strip("⎯ "))
            or _GO_PACKAGE.match(stripped)
            or _GO_RUN.match(stripped)
        ):
            break  # the next test's report, the totals, or Vitest's next section (`⎯⎯ Unhandled Errors ⎯⎯`)
        stripped = stripped.lstrip("#").strip()  # TAP's and bats' comment lines
        if said and stripped.startswith("at "):
            break  # below the stack: the error's properties (`code: 'ERR_ASSERTION',`), not news
        if (
            not stripped
            or i == joined
            or stripped.startswith(("at ", "File ", "❯ ", "⎯", "---", "___", "===", "Error Trace:", "Test:"))
            or _DIFF_LEGEND.match(stripped)
            or _REPORT_FRAME.match(stripped)
        ):
            continue
        if stripped.startswith("●"):
            title = title or [stripped.lstrip("● ").strip()]
        elif _TEST_MESSAGE.search(stripped):
            if stripped.endswith(":") and i + 1 < len(lines):
                stripped, joined = f"{stripped} {lines[i + 1].strip()}", i + 1
            said.append(cut(stripped, 160))
        elif not plain:
            plain.append(cut(stripped, 160))
    return [*title, *(said[:3] or plain)]


# A failed case in the forms other runners print, its name in `name`: TAP's `not ok 2 - parses
# dates` (bats, `node --test --test-reporter=tap`, prove; not one marked `# TODO` or `# SKIP`),
# `node --test`'s `✖ parses dates (1.2ms)` (not its `✖ failing tests:` heading), Playwright's
# `✘  1 [chromium] › a.spec.ts:5:5 › title (5.1s)` and the `1) [chromium] › … ───` over its report.
_CASE = re.compile(
    r"^\s*(?:(?P<tap>not ok \d+(?: -)? )(?!.*#\s*(?:TODO|SKIP)\b)|(?P<node>✖ )(?!failing tests:|\d+ problems? \()|"
    r"✘\s+\d+ |\d+\) (?=\[[\w -]+\] › ))"
    r"(?P<name>\S.*)$"
)
# What follows a case's name: its duration (`(1.2ms)`, `[5.1s]`) or a rule (`───`). Each alternative
# starts where the spaces or the rule start, so a long line of spaces costs one pass, not its square.
DURATION = re.compile(r"(?<!\s)\s+(?:\(\d+(?:\.\d+)?m?s\)|\[\d+(?:\.\d+)?m?s\])$|(?<![\s─])\s*─+$")


def failed_cases(raw: list[str]) -> list[str]:
    """Each failed case printed in one of `_CASE`'s forms, once, with what its report says (taken
    from the first of its lines that has a report under it: Playwright names a case in its listing,
    then again over the report)."""
    found: dict[str, str] = {}
    for at, line in enumerate(raw):
        m = _CASE.match(line)
        if m is None:
            continue
        name, report = DURATION.sub("", m["name"]).rstrip(), _report(raw, at)
        if name not in found or (report and found[name].count(" / ") == 0):  # a report beats none
            found[name] = " / ".join([f"{(m['tap'] or m['node'] or '✘ ').strip()} {name}", *report])
    return list(found.values())


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


# Vitest's listing of a file's tests (`   × cart > totals 6ms` over `     → expected 25 to be 30`): each
# failed test with what it reported, all of them, even where the detailed reports below were cut.
_VITEST_FAILED = re.compile(r"^\s*×\s+(\S.*?)(?:\s+\d+(?:\.\d+)?m?s)?$")
_VITEST_SAID = re.compile(r"^\s*→\s+(\S.*)$")


def _vitest_listed(raw: list[str]) -> list[tuple[str, str]]:
    """Each failed test of Vitest's listing as (its name, what it reported): only a `×` line with
    the `→` line Vitest writes under it, so that another tool's `×` is never read as a test."""
    listed = []
    for at, line in enumerate(raw[:-1]):
        if (name := _VITEST_FAILED.match(line)) and (said := _VITEST_SAID.match(raw[at + 1])):
            listed.append((name.group(1), said.group(1)))
    return listed


def with_listed(tests: list[str], raw: list[str]) -> list[str]:
    """`tests` (the failed tests' reports) and, after them, the failed tests Vitest listed that no
    report names: a long run's output is cut in the middle, where the reports are."""
    unnamed = [
        f"× {name} → {cut(said, 160)}"
        for name, said in _vitest_listed(raw)
        if not any(name in t for t in tests)
    ]
    return tests + unnamed


# Vitest's heading over an error thrown outside any test (`⎯⎯ Uncaught Exception ⎯⎯`), which fails
# the run even when every test passed.
_VITEST_UNHANDLED = re.compile(r"^\s*⎯+ (Uncaught Exception|Unhandled (?:Rejection|Error)) ⎯+$")


def unhandled(raw: list[str]) -> list[str]:
    """Each error Vitest caught outside the tests, under its heading (`Uncaught Exception / Error:
    boom`): read after the failed tests' reports, it would otherwise go unsaid beside them."""
    return [
        f"{m.group(1)} / {raw[at + 1].strip()}"
        for at, line in enumerate(raw[:-1])
        if (m := _VITEST_UNHANDLED.match(line))
    ]


# unittest's (and Django's test runner's) report of a failed test: `FAIL: test_add (app.tests.T.test_add)`
# over a rule, a traceback and the exception, up to the next report's rule.
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): \S+ \([\w./]+\)")
_UNITTEST_RULE = re.compile(r"^(?:={20,}|-{20,})$")


def unittest_failure(raw: list[str]) -> list[str]:
    """The first test unittest reports failed, with the exception its traceback ends on (`FAIL:
    test_add (t.T.test_add) / AssertionError: 2 != 3`), not its totals `FAILED (failures=1)`. One
    row a run, as the totals were: a row per failed test added four rows on the test split, all of
    failures no reader had counted (bench/error_kinds.py)."""
    for at, line in enumerate(raw):
        if not _UNITTEST.match(line):
            continue
        said = ""
        start = next(
            (i + 1 for i in range(at + 1, min(at + 4, len(raw))) if _UNITTEST_RULE.match(raw[i])), at + 1
        )
        for below in raw[start : start + 200]:  # past the rule under the heading (and a docstring's line)
            if _UNITTEST_RULE.match(below):
                break
            if below[:1].strip() and not below.startswith(("Traceback", "During handling", "The above")):
                said = below.strip()  # the last unindented line: the exception
        return [f"{line.strip()} / {cut(said, 160)}" if said else line.strip()]
    return []


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


_ADVICE = re.compile(r"^\s*(?:note|help|hint)\b:", re.IGNORECASE)


def _cause(raw: list[str], at: int) -> list[str]:
    """The deepest cause of the error on line `at` when a `Caused by:` chain follows it (anyhow,
    eyre, Java): the last line of the indented block under it, where the real failure is named."""
    for by in range(at + 1, min(at + 4, len(raw))):
        if raw[by].strip().rstrip(":") == "Caused by":
            block = []
            for line in raw[by + 1 : by + 16]:
                if not line[:1].isspace() or _ADVICE.match(line):
                    break  # a `Note:` or `help:` after the cause advises; it names no failure
                block.append(line.strip())
            return [block[-1]] if block else []
    return []
