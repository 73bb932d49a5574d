"""Linters' and checkers' own layouts (summary/errors/linters.py) and their totals when a pipe
hides the exit code. The outputs are what ESLint 9, ruff 0.17, Biome 2.6, clippy 1.95, Vitest 3 and
Jest 29 printed here."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary.errors import extract_errors_resolved
from graphiti_session_tracking.summary.errors.linters import positioned

ESLINT = """
/p/src/bad.js
  1:7   error    'x' is assigned a value but never used  no-unused-vars
  1:9   warning  Unexpected console statement            no-console
  2:5   error    'y' is not defined                      no-undef
  2:15  error    'console' is not defined                no-undef

/p/src/other.ts
  3:1  error  Expected '===' and instead saw '=='  eqeqeq

✖ 5 problems (4 errors, 1 warning)
"""

RUFF_CHECK = """I001 [*] Import block is un-sorted or un-formatted
 --> m.py:1:1
  |
1 | import os
  | ^^^^^^^^^
2 | x: int = "s"
  |
help: Organize imports

F401 [*] `os` imported but unused
 --> m.py:1:8
  |
1 | import os
  |        ^^
  |
help: Remove unused import: `os`

Found 2 errors.
[*] 2 fixable with `--fix`."""

RUSTC = """warning: unused variable: `n`
 --> src/main.rs:2:9
  |
2 |     let n = 1;
  |         ^ help: if this is intentional, prefix it with an underscore: `_n`

error[E0308]: mismatched types
 --> src/main.rs:4:18"""

BIOME = """b.js:1:7 lint/correctness/noUnusedVariables  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  ! This variable x is unused.

  > 1 │ const x = 1; if (y == 2) { console.log("z"); }
      │       ^

b.js:1:20 lint/suspicious/noDoubleEquals  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × Using == may be unsafe if you are relying on type coercion.

  > 1 │ const x = 1; if (y == 2) { console.log("z"); }
      │                    ^^

Checked 1 file in 5ms. No fixes applied.
Found 1 error.
Found 1 warning.
lint ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × Some errors were emitted while running checks."""

CLIPPY = """error: length comparison to zero
 --> src/main.rs:3:8
  |
3 |     if v.len() == 0 { println!("e"); }
  |        ^^^^^^^^^^^^ help: using `is_empty` is clearer and more explicit: `v.is_empty()`
  |
  = note: `-D clippy::len-zero` implied by `-D warnings`

error: useless use of `vec!`
 --> src/main.rs:2:13
  |
2 |     let v = vec![1, 2];
  |             ^^^^^^^^^^ help: you can use an array directly: `[1, 2]`

error: could not compile `cl` (bin "cl") due to 2 previous errors"""

VITEST_COVERAGE = """ ✓ src/math.test.ts (4 tests) 7ms

 Test Files  1 passed (1)
      Tests  4 passed (4)

 % Coverage report from v8
----------|---------|----------|---------|---------|-------------------
File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s
----------|---------|----------|---------|---------|-------------------
All files |     100 |      100 |      50 |     100 |
----------|---------|----------|---------|---------|-------------------
ERROR: Coverage for functions (50%) does not meet global threshold (95%)"""

JEST_COVERAGE = """All files |   66.66 |      100 |      50 |   66.66 |
----------|---------|----------|---------|---------|-------------------
Jest: "global" coverage threshold for functions (90%) not met: 50%
Test Suites: 1 passed, 1 total
Tests:       2 passed, 2 total"""


def test_eslint_problems_are_read_under_their_file_without_warnings() -> None:
    assert positioned(ESLINT.splitlines()) == [
        ("/p/src/bad.js:1:7", "error 'x' is assigned a value but never used (no-unused-vars)"),
        ("/p/src/bad.js:2:5", "error 'y' is not defined (no-undef)"),
        ("/p/src/bad.js:2:15", "error 'console' is not defined (no-undef)"),
        ("/p/src/other.ts:3:1", "error Expected '===' and instead saw '==' (eqeqeq)"),
    ]


def test_an_annotated_finding_is_its_headline_at_its_position_and_a_warning_is_none() -> None:
    assert positioned(RUFF_CHECK.splitlines()) == [
        ("m.py:1:1", "I001 [*] Import block is un-sorted or un-formatted"),
        ("m.py:1:8", "F401 [*] `os` imported but unused"),
    ]
    assert positioned(RUSTC.splitlines()) == [("src/main.rs:4:18", "error[E0308]: mismatched types")]


@pytest.mark.parametrize(
    ("command", "output", "errors"),
    [
        (
            "npx eslint src",
            ESLINT,
            [
                "/p/src/bad.js:1:7: error 'x' is assigned a value but never used (no-unused-vars)",
                "/p/src/bad.js:2:5: error 'y' is not defined (no-undef)",  # no-undef once
                "/p/src/other.ts:3:1: error Expected '===' and instead saw '==' (eqeqeq)",
            ],
        ),
        (
            "ruff check .",
            RUFF_CHECK,
            [
                "m.py:1:1: I001 [*] Import block is un-sorted or un-formatted",
                "m.py:1:8: F401 [*] `os` imported but unused",
            ],
        ),
        (
            "npx biome lint src",
            BIOME,
            [
                "b.js:1:20: lint/suspicious/noDoubleEquals: Using == may be unsafe if you are relying on type coercion."
            ],
        ),
        (
            "cargo clippy -- -D warnings",
            CLIPPY,
            [
                "src/main.rs:3:8: error: length comparison to zero",
                "src/main.rs:2:13: error: useless use of `vec!`",
            ],
        ),
        (
            "npm test -- --coverage",
            VITEST_COVERAGE,
            ["ERROR: Coverage for functions (50%) does not meet global threshold (95%)"],
        ),
        (
            "npx jest --coverage",
            JEST_COVERAGE,
            ['Jest: "global" coverage threshold for functions (90%) not met: 50%'],
        ),
    ],
)
@pytest.mark.parametrize("piped", [False, True])
def test_a_linters_findings_or_an_unmet_threshold_are_the_errors_even_through_a_pipe(
    tmp_path: Path, command: str, output: str, errors: list[str], piped: bool
) -> None:
    t = TranscriptBuilder()
    t.user("Make the checks pass.")
    run = f"{command} 2>&1 | tail -40" if piped else command
    t.bash(run, output if piped else f"Exit code 1\n{output}", is_error=not piped)
    t.edit("src/bad.js", "const x = 1;", "")
    t.bash(run, "All checks passed!")

    records = extract_errors_resolved(t.read(tmp_path))

    assert [r.error for r in records] == errors
    assert {r.fix for r in records} == {"Edited src/bad.js"}


def test_a_long_run_of_spaces_after_a_problem_is_read_once() -> None:
    """The rule is split off the trimmed line, not sought at every space (a quadratic regex)."""
    assert positioned(["/p/a.js", "  1:1  error  x" + " " * 100_000]) == [("/p/a.js:1:1", "error x")]
