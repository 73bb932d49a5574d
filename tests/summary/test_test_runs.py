"""Test results from runner output: real transcripts, and each runner's output as it prints it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import TRANSCRIPTS

from graphiti_session_tracking.summary.model import TestSummary
from graphiti_session_tracking.summary.test_runs import (
    extract_test_results,
    is_test_command,
    parse_test_output,
    tool_output,
)
from graphiti_session_tracking.transcripts import Session, ToolCall, ToolResult, read_transcript

# --- outputs as the runners print them ----------------------------------------------------------

PYTEST_MIXED_WITH_COVERAGE = """\
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
rootdir: /home/dev/app
configfile: pyproject.toml
plugins: cov-6.0.0, anyio-4.8.0
collected 48 items

tests/test_auth.py ..F.....                                              [ 16%]
tests/test_api.py ........s..........E...........x........               [100%]

==================================== ERRORS ====================================
__________________________ ERROR at setup of test_db ___________________________

    @pytest.fixture
    def db():
>       return connect("sqlite:////nonexistent/app.db")
E       sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) unable to open database file

tests/conftest.py:9: OperationalError
=================================== FAILURES ===================================
______________________________ test_auth_timeout _______________________________

    def test_auth_timeout():
>       assert login(timeout=1) == "ok"
E       AssertionError: assert 'timeout' == 'ok'

tests/test_auth.py:31: AssertionError
---------- coverage: platform linux, python 3.12.3-final-0 -----------
Name                  Stmts   Miss  Cover
-----------------------------------------
src/app/__init__.py       2      0   100%
src/app/api.py          120     15    88%
src/app/auth.py          48      6    88%
-----------------------------------------
TOTAL                   170     21    88%

=========================== short test summary info ============================
FAILED tests/test_auth.py::test_auth_timeout - AssertionError: assert 'timeout' == 'ok'
ERROR tests/test_api.py::test_db - sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) unable to open database file
======= 1 failed, 44 passed, 1 skipped, 1 xfailed, 1 error in 2.31s ========
"""

PYTEST_QUIET_PASS = """\
..........                                                               [100%]
10 passed in 0.12s
"""

PYTEST_QUIET_FAIL = """\
.F.                                                                      [100%]
=================================== FAILURES ===================================
____________________________________ test_b ____________________________________

    def test_b():
>       assert 1 == 2
E       assert 1 == 2

test_x.py:6: AssertionError
=========================== short test summary info ============================
FAILED test_x.py::test_b - assert 1 == 2
1 failed, 2 passed in 0.05s
"""

PYTEST_VERBOSE_FAIL = """\
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0 -- /home/dev/app/.venv/bin/python
cachedir: .pytest_cache
rootdir: /home/dev/app
collecting ... collected 3 items

tests/test_math.py::test_add PASSED                                      [ 33%]
tests/test_math.py::test_div FAILED                                      [ 66%]
tests/test_math.py::test_pow[2-8] PASSED                                 [100%]

=================================== FAILURES ===================================
___________________________________ test_div ___________________________________
E       ZeroDivisionError: division by zero
=========================== short test summary info ============================
FAILED tests/test_math.py::test_div - ZeroDivisionError: division by zero
==================== 1 failed, 2 passed, 1 warning in 0.04s ====================
"""

PYTEST_COLLECTION_ERROR = """\
============================= test session starts ==============================
collected 0 items / 1 error

==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_broken.py _____________________
ImportError while importing test module '/home/dev/app/tests/test_broken.py'.
E   ModuleNotFoundError: No module named 'requests'
=========================== short test summary info ============================
ERROR tests/test_broken.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.21s ===============================
"""

PYTEST_COVERAGE_UNDER = """\
....                                                                     [100%]
---------- coverage: platform linux, python 3.12.3-final-0 -----------
Name             Stmts   Miss Branch BrPart  Cover   Missing
------------------------------------------------------------
src/calc.py         40      5     12      2    87.50%   31-35
------------------------------------------------------------
TOTAL               40      5     12      2    87.50%

FAIL Required test coverage of 90% not reached. Total coverage: 87.50%
4 passed in 0.30s
"""

UNITTEST_FAILED = """\
..F.E.s
======================================================================
ERROR: test_load (tests.test_config.ConfigTest.test_load)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/home/dev/app/tests/test_config.py", line 12, in test_load
    load("missing.toml")
FileNotFoundError: [Errno 2] No such file or directory: 'missing.toml'

======================================================================
FAIL: test_parse (tests.test_config.ConfigTest.test_parse)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/home/dev/app/tests/test_config.py", line 8, in test_parse
    self.assertEqual(parse("a=1"), {"a": 2})
AssertionError: {'a': 1} != {'a': 2}
- {'a': 1}
?       ^
+ {'a': 2}
?       ^


----------------------------------------------------------------------
Ran 7 tests in 0.004s

FAILED (failures=1, errors=1, skipped=1)
"""

UNITTEST_OLD_STYLE_FAIL = """\
F.
======================================================================
FAIL: test_parse (tests.test_config.ConfigTest)
----------------------------------------------------------------------
AssertionError: 1 != 2

----------------------------------------------------------------------
Ran 2 tests in 0.001s

FAILED (failures=1)
"""

DJANGO_OK = """\
Found 12 test(s).
Creating test database for alias 'default'...
System check identified no issues (0 silenced).
..........ss
----------------------------------------------------------------------
Ran 12 tests in 0.231s

OK (skipped=2)
Destroying test database for alias 'default'...
"""

CARGO_FAILED = """\
   Compiling calc v0.1.0 (/home/dev/calc)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.52s
     Running unittests src/lib.rs (target/debug/deps/calc-3f1c2a9d8e7b6a54)

running 4 tests
test tests::adds ... ok
test tests::divides_by_zero ... FAILED
test tests::slow_fuzz ... ignored
test tests::subtracts ... ok

failures:

---- tests::divides_by_zero stdout ----

thread 'tests::divides_by_zero' panicked at src/lib.rs:27:9:
assertion `left == right` failed
  left: None
 right: Some(0)
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::divides_by_zero

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `--lib`
"""

CARGO_THREE_BINARIES = """\
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.04s
     Running unittests src/lib.rs (target/debug/deps/calc-3f1c2a9d8e7b6a54)

running 5 tests
test tests::adds ... ok
test tests::divides ... ok
test tests::slow_fuzz ... ignored
test tests::subtracts ... ok
test tests::multiplies ... ok

test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/cli.rs (target/debug/deps/cli-0a1b2c3d4e5f6789)

running 2 tests
test runs_help ... ok
test runs_version ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

   Doc-tests calc

running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.18s
"""

CARGO_NEXTEST = """\
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.05s
────────────
 Nextest run ID 5d2c3a5e-0b1c-4e8e-9b7a-3c1f0d2e4a6b with nextest profile: default
    Starting 5 tests across 2 binaries (1 test skipped)
        PASS [   0.004s] calc tests::adds
        FAIL [   0.005s] calc tests::divides_by_zero
──── STDOUT:             calc tests::divides_by_zero

running 1 test
test tests::divides_by_zero ... FAILED
        PASS [   0.003s] calc tests::subtracts
        PASS [   0.010s] calc::cli runs_help
        PASS [   0.011s] calc::cli runs_version
────────────
     Summary [   0.012s] 5 tests run: 4 passed, 1 failed, 1 skipped
        FAIL [   0.005s] calc tests::divides_by_zero
error: test run failed
"""

CARGO_TARPAULIN = """\
running 3 tests
test tests::adds ... ok
test tests::divides ... ok
test tests::subtracts ... ok

test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

Jan 10 10:42:17.512  INFO cargo_tarpaulin::report: Coverage Results:
|| Tested/Total Lines:
|| src/lib.rs: 35/40 +0.00%
||
87.50% coverage, 35/40 lines covered, +0.00% change in coverage
"""

GO_VERBOSE = """\
=== RUN   TestParse
=== RUN   TestParse/empty
=== RUN   TestParse/valid
--- PASS: TestParse (0.00s)
    --- PASS: TestParse/empty (0.00s)
    --- PASS: TestParse/valid (0.00s)
=== RUN   TestTimeout
    client_test.go:42: expected timeout after 1s, got none
--- FAIL: TestTimeout (1.00s)
=== RUN   TestRetry
    client_test.go:55: needs network
--- SKIP: TestRetry (0.00s)
FAIL
FAIL	example.com/client	1.012s
=== RUN   TestVersion
--- PASS: TestVersion (0.00s)
PASS
ok  	example.com/client/version	0.003s
FAIL
"""

GO_PACKAGES = """\
ok  	example.com/shop/cart	0.014s
--- FAIL: TestCheckout (0.00s)
    checkout_test.go:27: total = 90, want 100
FAIL
FAIL	example.com/shop/checkout	0.009s
?   	example.com/shop/cmd/shop	[no test files]
ok  	example.com/shop/inventory	(cached)
# example.com/shop/payments [example.com/shop/payments.test]
payments/stripe_test.go:14:2: undefined: NewClient
FAIL	example.com/shop/payments [build failed]
FAIL
"""

GO_COVER = """\
=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
--- PASS: TestSub (0.00s)
PASS
coverage: 81.2% of statements
ok  	example.com/calc	0.003s	coverage: 81.2% of statements
"""

JEST_FAILED = """\

> shop@1.0.0 test
> jest --coverage

 PASS  src/cart.test.js
 FAIL  src/checkout.test.js
  ● checkout › applies the discount code

    expect(received).toBe(expected) // Object.is equality

    Expected: 90
    Received: 100

      12 |   const total = checkout(cart, "SAVE10");
    > 13 |   expect(total).toBe(90);
         |                 ^
      14 | });

      at Object.toBe (src/checkout.test.js:13:17)

-------------|---------|----------|---------|---------|-------------------
File         | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s
-------------|---------|----------|---------|---------|-------------------
All files    |   85.71 |       75 |   66.67 |   83.33 |
 cart.js     |     100 |      100 |     100 |     100 |
 checkout.js |      75 |       50 |      50 |   71.42 | 4-5
-------------|---------|----------|---------|---------|-------------------
Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 1 skipped, 5 passed, 7 total
Snapshots:   0 total
Time:        1.204 s
Ran all test suites.
"""

JEST_PASSED = """\
 PASS  src/sum.test.js
  ✓ adds 1 + 2 to equal 3 (2 ms)
  ✓ adds negatives (1 ms)

Test Suites: 1 passed, 1 total
Tests:       2 passed, 2 total
Snapshots:   0 total
Time:        0.412 s, estimated 1 s
Ran all test suites.
"""

VITEST_FAILED = """\

 RUN  v1.6.0 /home/dev/shop

 ✓ src/cart.test.ts  (3 tests) 4ms
 ❯ src/checkout.test.ts  (3 tests | 1 failed | 1 skipped) 9ms
   ❯ src/checkout.test.ts > checkout > applies the discount code
     → expected 100 to be 90 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/checkout.test.ts > checkout > applies the discount code
AssertionError: expected 100 to be 90 // Object.is equality

- Expected
+ Received

- 90
+ 100

 ❯ src/checkout.test.ts:13:17
     11|   const total = checkout(cart, "SAVE10");
     12|   expect(total).toBe(90);
       |                 ^

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 4 passed | 1 skipped (6)
   Start at  10:42:17
   Duration  412ms (transform 38ms, setup 0ms, collect 52ms, tests 13ms, environment 0ms, prepare 160ms)

"""

VITEST_PASSED_VIA_NPM = """\

> shop@1.0.0 test
> vitest run --coverage


 RUN  v2.1.8 /home/dev/shop
      Coverage enabled with v8

 ✓ src/cart.test.ts (3 tests) 4ms
 ✓ src/sum.test.ts (2 tests) 2ms

 Test Files  2 passed (2)
      Tests  5 passed (5)
   Start at  10:45:01
   Duration  388ms (transform 40ms, setup 0ms, collect 49ms, tests 6ms, environment 0ms, prepare 150ms)

 % Coverage report from v8
----------|---------|----------|---------|---------|-------------------
File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s
----------|---------|----------|---------|---------|-------------------
All files |     100 |      100 |     100 |     100 |
 cart.ts  |     100 |      100 |     100 |     100 |
 sum.ts   |     100 |      100 |     100 |     100 |
----------|---------|----------|---------|---------|-------------------
"""

BUN_FAILED = """bun test v1.3.5 (1e86cebd)

src/cart.test.ts:
(pass) cart > adds an item [0.21ms]
(fail) cart > applies the discount [1.02ms]
error: expect(received).toBe(expected)
(skip) cart > later

 11 pass
 1 skip
 1 fail
 24 expect() calls
Ran 13 tests across 2 files. [118.00ms]"""

# rtk, a token-saving wrapper, keeps only the end of the output.
BUN_LAST_LINES = """📊 OUTPUT (last 5 lines):
   20 pass
   0 fail
   29 expect() calls
  Ran 20 tests across 1 file. [18.00ms]"""


NODE_TEST_FAILED = """\
✔ parses empty input (0.41ms)
✖ parses dates (1.2ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
ℹ tests 3
ℹ suites 0
ℹ pass 1
ℹ fail 1
ℹ cancelled 0
ℹ skipped 1
ℹ todo 0
ℹ duration_ms 45.1

✖ failing tests:

✖ parses dates (1.2ms)
"""

BATS_TAP = """\
1..4
ok 1 formats files
not ok 2 check_list_files with non-zero exit should be an error
# (in test file test/check.bats, line 20)
ok 3 windows paths # skip not on this platform
not ok 4 retries flaky steps # TODO not written yet
"""

BATS_PRETTY = """\
 ✓ formats files
 ✗ check_list_files with non-zero exit should be an error
   (in test file test/check.bats, line 20)
 - windows paths (skipped)

3 tests, 1 failure, 1 skipped
"""

MOCHA_FAILED = """\
  parser
    ✓ handles empty input
    1) parses dates

  1 passing (5ms)
  1 failing
  1 pending

  1) parser
       parses dates:
     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
"""

PLAYWRIGHT_FAILED = """\
Running 3 tests using 1 worker

  ✓  1 [chromium] › tests/home.spec.ts:3:5 › has a header (1.1s)
  ✘  2 [chromium] › tests/home.spec.ts:9:5 › shows the title (5.1s)

  1) [chromium] › tests/home.spec.ts:9:5 › shows the title ───────

    Error: Timed out 5000ms waiting for expect(locator).toHaveTitle(expected)

  1 failed
    [chromium] › tests/home.spec.ts:9:5 › shows the title
  1 skipped
  1 passed (8.0s)
"""


# --- parse_test_output --------------------------------------------------------------------------


def _summary(
    framework: str,
    total: int,
    passed: int,
    failed: int,
    skipped: int = 0,
    coverage: float | None = None,
    failed_tests: list[str] | None = None,
) -> TestSummary:
    return TestSummary(
        framework=framework,
        total=total,
        passed=passed,
        failed=failed,
        skipped=skipped,
        coverage_pct=coverage,
        failed_tests=failed_tests,
    )


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        pytest.param(
            PYTEST_MIXED_WITH_COVERAGE,
            _summary(
                "pytest",
                48,
                44,
                2,
                2,
                88.0,
                ["tests/test_auth.py::test_auth_timeout", "tests/test_api.py::test_db"],
            ),
            id="pytest-mixed-cov",
        ),
        pytest.param(PYTEST_QUIET_PASS, _summary("pytest", 10, 10, 0), id="pytest-q-pass"),
        pytest.param(
            PYTEST_QUIET_FAIL,
            _summary("pytest", 3, 2, 1, failed_tests=["test_x.py::test_b"]),
            id="pytest-q-fail",
        ),
        pytest.param(
            PYTEST_VERBOSE_FAIL,
            _summary("pytest", 3, 2, 1, failed_tests=["tests/test_math.py::test_div"]),
            id="pytest-v-fail",
        ),
        pytest.param(
            PYTEST_COLLECTION_ERROR,
            _summary("pytest", 1, 0, 1, failed_tests=["tests/test_broken.py"]),
            id="pytest-collection-error",
        ),
        pytest.param(PYTEST_COVERAGE_UNDER, _summary("pytest", 4, 4, 0, 0, 87.5), id="pytest-cov-fail-under"),
        pytest.param(
            "=========================== 3 passed, 2 deselected in 0.03s ===========================\n",
            _summary("pytest", 3, 3, 0),
            id="pytest-deselected",
        ),
        pytest.param(
            "============================ no tests ran in 0.01s =============================\n",
            _summary("pytest", 0, 0, 0),
            id="pytest-no-tests",
        ),
        pytest.param(
            "\x1b[32m============================== \x1b[32m\x1b[1m5 passed\x1b[0m\x1b[32m in 61.20s (0:01:01)\x1b[0m\x1b[32m ===============================\x1b[0m\n",
            _summary("pytest", 5, 5, 0),
            id="pytest-ansi-long-run",
        ),
        pytest.param(
            UNITTEST_FAILED,
            _summary(
                "unittest",
                7,
                4,
                2,
                1,
                failed_tests=[
                    "tests.test_config.ConfigTest.test_load",
                    "tests.test_config.ConfigTest.test_parse",
                ],
            ),
            id="unittest-failed",
        ),
        pytest.param(
            UNITTEST_OLD_STYLE_FAIL,
            _summary("unittest", 2, 1, 1, failed_tests=["tests.test_config.ConfigTest.test_parse"]),
            id="unittest-pre-3.11-names",
        ),
        pytest.param(DJANGO_OK, _summary("unittest", 12, 10, 0, 2), id="django-ok-skipped"),
        pytest.param(
            CARGO_FAILED,
            _summary("cargo", 4, 2, 1, 1, failed_tests=["tests::divides_by_zero"]),
            id="cargo-failed",
        ),
        pytest.param(CARGO_THREE_BINARIES, _summary("cargo", 8, 7, 0, 1), id="cargo-summed-over-binaries"),
        pytest.param(
            CARGO_NEXTEST,
            _summary("cargo", 6, 4, 1, 1, failed_tests=["calc tests::divides_by_zero"]),
            id="cargo-nextest",
        ),
        pytest.param(CARGO_TARPAULIN, _summary("cargo", 3, 3, 0, 0, 87.5), id="cargo-tarpaulin"),
        pytest.param(GO_VERBOSE, _summary("go", 4, 2, 1, 1, failed_tests=["TestTimeout"]), id="go-verbose"),
        pytest.param(
            GO_PACKAGES,
            _summary("go", 4, 2, 2, failed_tests=["TestCheckout", "example.com/shop/payments"]),
            id="go-packages",
        ),
        pytest.param(GO_COVER, _summary("go", 2, 2, 0, 0, 81.2), id="go-cover"),
        pytest.param(
            JEST_FAILED,
            _summary("jest", 7, 5, 1, 1, 83.33, ["checkout › applies the discount code"]),
            id="jest-failed-coverage",
        ),
        pytest.param(JEST_PASSED, _summary("jest", 2, 2, 0), id="jest-passed"),
        pytest.param(
            VITEST_FAILED,
            _summary(
                "vitest",
                6,
                4,
                1,
                1,
                failed_tests=["src/checkout.test.ts > checkout > applies the discount code"],
            ),
            id="vitest-failed",
        ),
        pytest.param(
            VITEST_PASSED_VIA_NPM, _summary("vitest", 5, 5, 0, 0, 100.0), id="npm-test-vitest-coverage"
        ),
        pytest.param(
            BUN_FAILED, _summary("bun", 13, 11, 1, 1, failed_tests=["cart > applies the discount"]), id="bun"
        ),
        pytest.param(BUN_LAST_LINES, _summary("bun", 20, 20, 0), id="bun-kept-last-lines-by-a-wrapper"),
        pytest.param(
            NODE_TEST_FAILED, _summary("node", 3, 1, 1, 1, failed_tests=["parses dates"]), id="node-test"
        ),
        pytest.param(
            BATS_TAP,
            _summary(
                "tap", 4, 1, 1, 2, failed_tests=["check_list_files with non-zero exit should be an error"]
            ),
            id="bats-tap-skip-and-todo",
        ),
        pytest.param(
            BATS_PRETTY,
            _summary(
                "bats", 3, 1, 1, 1, failed_tests=["check_list_files with non-zero exit should be an error"]
            ),
            id="bats",
        ),
        pytest.param(MOCHA_FAILED, _summary("mocha", 3, 1, 1, 1, failed_tests=["parses dates"]), id="mocha"),
        pytest.param(
            PLAYWRIGHT_FAILED,
            _summary(
                "playwright",
                3,
                1,
                1,
                1,
                failed_tests=["[chromium] › tests/home.spec.ts:9:5 › shows the title"],
            ),
            id="playwright",
        ),
    ],
)
def test_runner_output_is_parsed_to_the_runners_own_totals(output: str, expected: TestSummary) -> None:
    assert parse_test_output(output) == expected


@pytest.mark.parametrize(
    "output",
    [
        "",
        "Hello world\n",
        "    Checking calc v0.1.0 (/home/dev/calc)\n    Finished `dev` profile [unoptimized] target(s) in 0.05s\n",
        "error[E0425]: cannot find value `x` in this scope\nerror: could not compile `calc` (lib test) due to 1 previous error\n",
        "Found 3 files in 0.2s\n",  # "N word in Xs" but not pytest's words
        "tests/test_a.py::test_x PASSED [ 50%]\n",  # cut before the closing line
    ],
)
def test_output_without_a_totals_line_is_none(output: str) -> None:
    assert parse_test_output(output) is None


def test_two_runners_in_one_output_report_the_larger_run() -> None:
    both = CARGO_FAILED + "\n" + PYTEST_QUIET_PASS
    summary = parse_test_output(both)
    assert summary is not None and summary.framework == "pytest" and summary.total == 10


def test_two_pytest_runs_in_one_command_are_summed() -> None:
    summary = parse_test_output(PYTEST_QUIET_FAIL + PYTEST_QUIET_PASS)
    assert summary == _summary("pytest", 13, 12, 1, failed_tests=["test_x.py::test_b"])


def test_coverage_of_several_go_packages_is_not_guessed() -> None:
    two = GO_COVER + (
        "=== RUN   TestTokens\n--- PASS: TestTokens (0.00s)\nPASS\ncoverage: 64.0% of statements\n"
        "ok  \texample.com/calc/parse\t0.002s\tcoverage: 64.0% of statements\n"
    )
    summary = parse_test_output(two)
    assert summary is not None and summary.total == 3 and summary.coverage_pct is None


# --- is_test_command ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "pytest",
        "python -m pytest tests/test_math_utils.py -v",
        "uv run pytest -x -q 2>&1 | tail -20",
        "cd /app && PYTHONPATH=src python3 -m pytest --cov=src",
        "python -m unittest discover -s tests",
        "python manage.py test accounts",
        "tox -e py312",
        "cargo test 2>&1",
        "cargo +nightly test --all-features",
        "cargo nextest run",
        "cargo llvm-cov --fail-under-lines 100 2>&1",
        "go test ./... -race",
        "npm test",
        "npm run test -- --watch=false",
        "yarn test",
        "pnpm test",
        "npx jest src/cart.test.js",
        "npx vitest run",
        "./node_modules/.bin/jest",
        "just check 2>&1",
        "make test",
        "CI=1 make -C backend check",
        "mise run test:ci 2>&1",
        "rtk test bun test src/",
        "node --test",
        "node --experimental-strip-types --test test/",
        "bats test/",
        "npx mocha",
        "npx playwright test --project=chromium",
        "prove -v t/",
    ],
)
def test_commands_that_run_tests(command: str) -> None:
    assert is_test_command(command)


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "cat pytest.ini",
        "pip install pytest-cov",
        "cargo install cargo-llvm-cov 2>&1 | tail -20",
        "cargo build --release",
        "go build ./...",
        "npm install",
        "ls tests/",
        "cmake ..",
        "vim jest.config.js",
        "node server.js",
        "cat playwright.config.ts",
    ],
)
def test_commands_that_do_not(command: str) -> None:
    assert not is_test_command(command)


# --- extract_test_results on the real transcripts -----------------------------------------------


def test_coverage_fixture_last_run_is_pytests_two_passed() -> None:
    session = read_transcript(TRANSCRIPTS / "coverage-test-fix.jsonl")
    # Printed by pytest in that session: "============================== 2 passed in 0.00s ====".
    runs = [c for c in session.tool_calls if "pytest" in str(c.input.get("command", ""))]
    assert len(runs) == 1 and "== 2 passed in 0.00s ==" in tool_output(runs[0])

    assert extract_test_results(session) == _summary("pytest", 2, 2, 0)


def test_rust_port_fixture_last_run_is_just_check_with_llvm_cov() -> None:
    session = read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")
    bash = {c.line: c for c in session.tool_calls if c.name == "Bash"}
    # `cargo test` (line 43) ran the 29 unit tests and the 5 doc-tests, two `test result:` lines.
    cargo_test = tool_output(bash[43])
    assert "test result: ok. 29 passed; 0 failed; 0 ignored" in cargo_test
    assert "test result: ok. 5 passed; 0 failed; 0 ignored" in cargo_test
    assert parse_test_output(cargo_test) == _summary("cargo", 34, 34, 0)
    # The last test run is `just check` (line 74): `cargo llvm-cov` without doc-tests, whose
    # TOTAL row reads regions 99.71%, functions 100.00%, lines 100.00%.
    just_check = tool_output(bash[74])
    assert "test result: ok. 29 passed; 0 failed; 0 ignored" in just_check
    assert "TOTAL                             346                 1    99.71%" in just_check

    assert extract_test_results(session) == _summary("cargo", 29, 29, 0, 0, 100.0)


def test_fixtures_without_test_runs_give_none() -> None:
    for name in (
        "hello-world-script.jsonl",
        "stop-hook-uncommitted-changes.jsonl",
        "stop-hook-fast-path-clean.jsonl",
    ):
        assert extract_test_results(read_transcript(TRANSCRIPTS / name)) is None


# --- extract_test_results on built sessions -----------------------------------------------------

_T0 = datetime(2025, 1, 1, 10, 0, tzinfo=UTC)


def _bash(
    command: str,
    stdout: str | None = None,
    *,
    text: str | None = None,
    error: bool = False,
    minute: int | None = None,
    sidechain: bool = False,
    line: int = 1,
) -> ToolCall:
    structured = None if stdout is None else {"stdout": stdout, "stderr": "", "interrupted": False}
    return ToolCall(
        id=f"toolu_{line}_{minute}",
        name="Bash",
        input={"command": command},
        timestamp=None if minute is None else _T0 + timedelta(minutes=minute),
        line=line,
        is_sidechain=sidechain,
        result=ToolResult(
            text=text if text is not None else (stdout or ""),
            is_error=error,
            timestamp=None,
            structured=structured,
        ),
    )


def _session(*calls: ToolCall) -> Session:
    return Session(session_id="s", source_file="s.jsonl", tool_calls=list(calls))


def test_the_last_run_counts_not_the_worst_or_the_best() -> None:
    failing = _bash("pytest -q", PYTEST_QUIET_FAIL, line=1)
    passing = _bash("pytest -q", PYTEST_QUIET_PASS, line=2)
    assert extract_test_results(_session(failing, passing)) == _summary("pytest", 10, 10, 0)
    result = extract_test_results(_session(passing, failing))
    assert result is not None and result.failed == 1 and result.failed_tests == ["test_x.py::test_b"]


def test_failed_run_recorded_as_an_error_result_is_read_from_its_text() -> None:
    """Claude Code records a non-zero exit as an error whose text starts with "Exit code N"."""
    call = _bash("cargo test", text="Exit code 101\n" + CARGO_FAILED, error=True)
    assert extract_test_results(_session(call)) == _summary(
        "cargo", 4, 2, 1, 1, failed_tests=["tests::divides_by_zero"]
    )


def test_structured_stdout_and_stderr_are_preferred_to_the_clipped_text() -> None:
    call = _bash("python -m unittest", "", text="[output clipped]")
    assert call.result is not None and call.result.structured is not None
    call.result.structured["stderr"] = UNITTEST_FAILED  # unittest reports on stderr
    summary = extract_test_results(_session(call))
    assert summary is not None and summary.framework == "unittest" and summary.total == 7


def test_a_tap_stream_is_named_by_the_runner_its_command_ran() -> None:
    """TAP says only "TAP"; `bats --tap` ran it."""
    summary = extract_test_results(_session(_bash("bats --tap test/", BATS_TAP)))
    assert summary is not None and summary.framework == "bats" and summary.failed == 1
    other = extract_test_results(_session(_bash("make test", BATS_TAP)))
    assert other is not None and other.framework == "tap"


def test_runs_without_totals_and_non_test_commands_are_passed_over() -> None:
    run = _bash("go test ./...", GO_PACKAGES, line=1)
    log = _bash("cat /tmp/last-run.txt", PYTEST_QUIET_PASS, line=2)  # a runner's text, not a run
    interrupted = _bash("go test ./... -run TestSlow", "", text="[Request interrupted by user]", line=3)
    no_result = ToolCall(id="x", name="Bash", input={"command": "go test ./..."}, timestamp=None, line=4)
    summary = extract_test_results(_session(run, log, interrupted, no_result))
    assert summary is not None and summary.framework == "go" and summary.failed == 2


def test_calls_are_taken_in_time_order_when_every_call_has_a_time() -> None:
    # Sub-agent calls are appended after the main thread's; their times put them in place.
    main_late = _bash("npm test", JEST_PASSED, minute=30, line=1)
    sub_early = _bash("npx vitest run", VITEST_FAILED, minute=5, sidechain=True, line=2)
    summary = extract_test_results(_session(main_late, sub_early))
    assert summary is not None and summary.framework == "jest"


def test_non_bash_and_odd_inputs_are_ignored() -> None:
    odd = ToolCall(
        id="y",
        name="Bash",
        input={"command": ["pytest"]},
        timestamp=None,
        line=1,
        result=ToolResult(text=PYTEST_QUIET_PASS, is_error=False, timestamp=None),
    )
    other = ToolCall(
        id="z",
        name="mcp__runner__exec",
        input={"command": "pytest"},
        timestamp=None,
        line=2,
        result=ToolResult(text=PYTEST_QUIET_PASS, is_error=False, timestamp=None),
    )
    assert extract_test_results(_session(odd, other)) is None
    assert extract_test_results(_session()) is None


def test_from_a_written_transcript(tmp_path: Path) -> None:
    """Through the real reader: a Bash tool_use and its tool_result with `toolUseResult`."""
    records: list[dict[str, Any]] = [
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s1",
            "timestamp": "2025-01-01T10:00:05Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "go test -v ./..."},
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "s1",
            "timestamp": "2025-01-01T10:00:09Z",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "Exit code 1\n" + GO_VERBOSE,
                        "is_error": True,
                    }
                ],
            },
            "toolUseResult": "Error: Exit code 1\n" + GO_VERBOSE,
        },
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))

    session = read_transcript(path)

    assert session.problems == []
    assert extract_test_results(session) == _summary("go", 4, 2, 1, 1, failed_tests=["TestTimeout"])
