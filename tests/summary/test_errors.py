"""errors_resolved from tool calls: failure, the fix in between, the rerun that passed."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary.errors import error_signature, extract_errors_resolved
from graphiti_session_tracking.summary.errors.reports import go_leaves
from graphiti_session_tracking.summary.model import ErrorResolution

PYTEST_IMPORT_ERROR = """Exit code 2
============================= test session starts ==============================
collected 0 items / 1 error

==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_app.py _______________________
ImportError while importing test module '/p/tests/test_app.py'.
Traceback:
tests/test_app.py:1: in <module>
    from app import main
src/app.py:3: in <module>
    import foo
E   ModuleNotFoundError: No module named 'foo'
=========================== short test summary info ============================
ERROR tests/test_app.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.12s ==============================="""

PYTEST_PASS = """============================= test session starts ==============================
collected 13 items

tests/test_app.py ............s                                          [100%]

======================== 12 passed, 1 skipped in 0.30s ========================="""

CARGO_ERROR = """Exit code 101
   Compiling demo v0.1.0 (/p)
error[E0308]: mismatched types
 --> src/main.rs:4:18
  |
4 |     let n: u32 = "5";
  |            ---   ^^^ expected `u32`, found `&str`
error: could not compile `demo` (bin "demo") due to 1 previous error"""


def test_pytest_import_error_then_edit_then_passing_rerun(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("The tests are broken, fix them.")
    t.bash("python -m pytest tests/test_app.py", PYTEST_IMPORT_ERROR, is_error=True)
    t.say(
        "The import fails because `foo` was renamed to `foo_core` in the last release. "
        "The fix is to import `foo_core` instead."
    )
    t.edit("src/app.py", "import foo", "import foo_core as foo")
    t.bash("pytest -q", PYTEST_PASS, text="Let me rerun the tests.")

    records = extract_errors_resolved(t.read(tmp_path))

    assert records == [
        ErrorResolution(
            error="ModuleNotFoundError: No module named 'foo'",
            root_cause="The import fails because foo was renamed to foo_core in the last release.",
            fix="Edited src/app.py. The fix is to import foo_core instead",
            verification="`pytest -q` passed (12 passed, 1 skipped)",
        )
    ]


def test_cargo_build_error_then_fix(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Build it.")
    t.bash("cargo build", CARGO_ERROR, is_error=True)
    t.edit(
        "src/main.rs",
        'let n: u32 = "5";',
        "let n: u32 = 5;",
        text="The literal is a string; I'll make it a number.",
    )
    t.bash("cargo build 2>&1", "   Compiling demo v0.1.0 (/p)\n    Finished `dev` profile in 0.4s")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "error[E0308]: mismatched types"
    assert record.fix == "Edited src/main.rs"
    assert record.root_cause == ""
    assert record.verification == "`cargo build 2>&1` passed"


def test_an_unresolved_failure_is_recorded_without_a_fix(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash("pytest", "Exit code 1\nFAILED tests/test_a.py::test_one - assert 1 == 2\n1 failed", is_error=True)
    t.edit(
        "src/a.py", "return 1", "return 2", text="The test fails because the fixture returns a stale value."
    )
    t.bash("cargo test", "test result: ok. 3 passed; 0 failed")  # another kind: does not resolve it

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "FAILED tests/test_a.py::test_one - assert 1 == 2"
    assert record.root_cause == "The test fails because the fixture returns a stale value."
    assert (record.fix, record.verification) == ("", "")


def test_a_resolved_error_and_the_same_error_left_open_are_one_record(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run both suites.")
    t.bash("pytest", "Exit code 1\nE   ImportError: no module named foo\n1 failed", is_error=True)
    t.edit("setup.py", "a", "b")
    t.bash("pytest", "3 passed")
    t.bash("python tools/x.py", "Exit code 1\nImportError: no module named foo", is_error=True)

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "ImportError: no module named foo"
    assert record.fix == "Edited setup.py"


def test_errors_printed_while_exiting_0_and_never_rerun_give_no_record(tmp_path: Path) -> None:
    """Without the session's reaction, a script's logged errors may be what it is meant to print."""
    t = TranscriptBuilder()
    t.user("Import the files.")
    t.bash("python import.py", "Error processing a.json: bad escape\nimported 3 files")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_each_distinct_failure_of_one_kind_is_its_own_record(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the test.")
    t.bash("pytest tests/test_a.py", "Exit code 1\nE   AssertionError: first\n1 failed", is_error=True)
    t.edit("src/a.py", "x = 1", "x = 2")
    t.bash("pytest tests/test_a.py -x", "Exit code 1\nE   AssertionError: first\n1 failed", is_error=True)
    t.bash("pytest tests/test_a.py -x", "Exit code 1\nE   AssertionError: second\n1 failed", is_error=True)
    t.edit("src/b.py", "y = 1", "y = 2")
    t.bash("pytest", "3 passed in 0.1s")

    first, second = extract_errors_resolved(t.read(tmp_path))

    assert first.error == "AssertionError: first"
    assert first.fix == "Edited src/a.py, src/b.py"
    assert second.error == "AssertionError: second"
    assert second.fix == "Edited src/b.py"
    assert first.verification == second.verification == "`pytest` passed (3 passed)"


def test_failure_hidden_by_a_pipe_is_still_a_failure(tmp_path: Path) -> None:
    """`cargo test | tail` exits 0; the output says the tests failed."""
    t = TranscriptBuilder()
    t.user("Make the tests pass.")
    t.bash(
        "cargo test 2>&1 | tail -5",
        "test math::tests::t ... FAILED\n\ntest result: FAILED. 2 passed; 1 failed",
    )
    t.edit("src/math.rs", "a - b", "a + b")
    t.bash("cargo test 2>&1 | tail -5", "test result: ok. 3 passed; 0 failed; 0 ignored")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "test math::tests::t ... FAILED"
    assert record.verification == "`cargo test 2>&1 | tail -5` passed (3 passed)"


def test_refusals_lookups_and_harness_errors_are_not_errors(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Tidy up.")
    t.call(
        "Bash",
        {"command": "rm -rf build"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        is_error=True,
    )
    t.bash("rm -rf build", "")
    t.call(
        "Edit",
        {"file_path": "/p/a.py", "old_string": "a", "new_string": "b"},
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        is_error=True,
    )
    t.edit("a.py", "a", "b")
    t.bash("grep -rn TODO src", "Exit code 1", is_error=True)  # grep found nothing: not a failure
    t.bash("grep -rn FIXME src", "src/a.py:3: FIXME")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_installing_a_package_is_the_fix(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the app.")
    t.bash(
        "python app.py",
        'Exit code 1\nTraceback (most recent call last):\n  File "app.py", line 1, in <module>\n'
        "    import requests\nModuleNotFoundError: No module named 'requests'",
        is_error=True,
    )
    t.bash("pip install requests", "Successfully installed requests-2.32.3")
    t.bash("python app.py", "ok")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "ModuleNotFoundError: No module named 'requests'"
    assert record.fix == "Ran `pip install requests`"
    assert record.verification == "`python app.py` succeeded"


def test_the_fix_names_what_changed_last_not_a_scratch_try_or_a_listing(tmp_path: Path) -> None:
    """The generating step inside a check (`mise run pkl:gen && cargo test`) is named; a try-out in
    a folder made for it (`mktemp -d`) and a listing of tags are not changes to the project."""
    t = TranscriptBuilder()
    t.user("Run the hook.")
    t.bash(
        "cargo run --quiet --bin hk -- test",
        "Exit code 101\nthread 'main' panicked at src/settings.rs:101:30:\n"
        "Failed to load configuration: Import not found: /w/hk/pkl/Builtins.pkl",
        is_error=True,
    )
    t.bash('tmp=$(mktemp -d); git -C "$tmp" init -q; git -C "$tmp" symbolic-ref HEAD', "refs/heads/main")
    t.bash("git tag --contains 8798445 --sort=version:refname | head -10", "v1.2.0")
    t.edit("src/settings.rs", "a", "b")
    t.bash("mise run pkl:gen && cargo test settings", "test result: ok. 3 passed")
    t.bash("cargo run --quiet --bin hk -- test", "ok")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.fix == "Edited src/settings.rs; ran `mise run pkl:gen`"


def test_a_clean_run_whose_grep_hides_the_error_proves_nothing(tmp_path: Path) -> None:
    """`tsc | grep -E "ezoic" || echo …` cannot print a TS2345 in another file: the error stays
    open; a grep that would let the line through (`grep -v PASSED`) still proves it gone."""
    t = TranscriptBuilder()
    t.user("Check the types.")
    failing = "src/a.test.ts:29:39 - error TS2345: Argument of type 'null' is not assignable."
    t.bash("npx tsc --noEmit 2>&1 | head -30", f"Exit code 2\n{failing}", is_error=True)
    t.edit("src/ezoic.tsx", "a", "b")
    t.bash(
        'npx tsc --noEmit 2>&1 | grep -E "ezoic|Ezoic" || echo "No errors in ezoic files"',
        "No errors in ezoic files",
    )
    t.bash("pytest -q", "Exit code 1\nFAILED tests/test_a.py::test_a - assert 1 == 2", is_error=True)
    t.edit("tests/test_a.py", "1", "2")
    t.bash("pytest -q 2>&1 | grep -v PASSED", "1 passed in 0.01s")
    t.bash("go test ./...", "Exit code 1\n--- FAIL: TestParse (0.00s)\n    p_test.go:9: got 1", is_error=True)
    t.edit("p.go", "1", "2")
    t.bash("go test ./... 2>&1 | grep -B 2 -A 5 FAIL", "")  # `2` and `5` are counts, FAIL the pattern

    tsc, pytest, go = extract_errors_resolved(t.read(tmp_path))

    assert (tsc.error, tsc.fix) == (failing, "")
    assert pytest.fix == "Edited tests/test_a.py"
    assert go.fix == "Edited p.go"


def test_an_exception_that_introduces_its_values_keeps_them(tmp_path: Path) -> None:
    """Node's `assert` ends its message with ":" and gives the values on the next line."""
    t = TranscriptBuilder()
    t.user("Check the parser.")
    t.bash(
        "node check.js",
        "Exit code 1\nnode:assert:125\n  throw new AssertionError(obj);\n  ^\n\n"
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n"
        "'2024-01-01' !== '2024-01-02'\n\n    at Object.<anonymous> (/repo/check.js:3:8)\n",
        is_error=True,
    )
    [record] = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: '2024-01-01' !== '2024-01-02'"
    )


def test_a_node_test_runner_failure_is_its_case_and_its_fullest_report(tmp_path: Path) -> None:
    """`node --test` names the failed case (`✖ parses dates`) over its report, then repeats both
    under `✖ failing tests:`, there without the values: one row, the case with the values."""
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "node --test",
        "Exit code 1\n✔ parses empty input (0.4ms)\n✖ parses dates (1.2ms)\n"
        "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n"
        "  '2024-01-01' !== '2024-01-02'\n\n"
        "      at TestContext.<anonymous> (file:///repo/test/parser.test.js:12:12)\n"
        "      at Test.runInAsyncScope (node:async_hooks:206:9) {\n"
        "    code: 'ERR_ASSERTION',\n    expected: '2024-01-02',\n  }\n"
        "ℹ tests 2\nℹ fail 1\n\n✖ failing tests:\n\n"
        "✖ parses dates (1.2ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n",
        is_error=True,
    )
    [record] = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "✖ parses dates / AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"
        " '2024-01-01' !== '2024-01-02'"
    )


def test_each_failed_tap_case_is_a_row_with_what_its_report_says(tmp_path: Path) -> None:
    """TAP's `not ok` (bats, `node --test --test-reporter=tap`): the case and the failing line of its
    report, not where the report points (`(from function …`) nor a case marked `# TODO`."""
    t = TranscriptBuilder()
    t.user("Run the bats suite.")
    t.bash(
        "bats test/",
        "Exit code 1\n1..4\nok 1 formats files\n"
        "not ok 2 check_list_files with non-zero exit should be an error\n"
        "# (from function `assert_output' in file test/helper.bash, line 5,\n"
        "#  in test file test/check.bats, line 20)\n"
        '#   `assert_output --partial "aborted"\' failed\n#\n'
        "# -- output does not contain substring --\n"
        "not ok 3 - parses dates\n  ---\n  duration_ms: 1.2\n  error: |-\n"
        "    Expected values to be strictly equal:\n    '2024-01-01' !== '2024-01-02'\n  ...\n"
        "not ok 4 windows paths # TODO not supported yet\n",
        is_error=True,
    )
    records = extract_errors_resolved(t.read(tmp_path))
    assert [r.error for r in records] == [
        "not ok 2 check_list_files with non-zero exit should be an error / `assert_output --partial"
        ' "aborted"\' failed',
        "not ok 3 - parses dates / Expected values to be strictly equal: '2024-01-01' !== '2024-01-02'",
    ]


def test_a_playwright_failure_is_its_case_once_with_its_report(tmp_path: Path) -> None:
    """Playwright names a failed case in its listing (`✘`) and again over its report (`1) …`)."""
    t = TranscriptBuilder()
    t.user("Run the e2e tests.")
    t.bash(
        "npx playwright test",
        "Exit code 1\nRunning 2 tests using 1 worker\n\n"
        "  ✓  1 [chromium] › tests/home.spec.ts:3:5 › has a header (1.1s)\n"
        "  ✘  2 [chromium] › tests/home.spec.ts:9:5 › shows the title (5.1s)\n\n"
        "  1) [chromium] › tests/home.spec.ts:9:5 › shows the title ──────────────\n\n"
        "    Error: Timed out 5000ms waiting for expect(locator).toHaveTitle(expected)\n\n"
        '    Expected pattern: /Shop/\n    Received string:  "Home"\n\n'
        "      at /repo/tests/home.spec.ts:11:24\n\n  1 failed\n  1 passed (8.0s)\n",
        is_error=True,
    )
    [record] = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "✘ [chromium] › tests/home.spec.ts:9:5 › shows the title / Error: Timed out 5000ms waiting for"
        ' expect(locator).toHaveTitle(expected) / Expected pattern: /Shop/ / Received string: "Home"'
    )


def test_different_scripts_are_different_kinds(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run both.")
    t.bash("python a.py", "Exit code 1\nValueError: bad", is_error=True)
    t.bash("python b.py", "fine")

    [record] = extract_errors_resolved(t.read(tmp_path))  # b.py running says nothing of a.py

    assert (record.error, record.fix, record.verification) == ("ValueError: bad", "", "")


def test_a_sub_agent_is_read_like_the_main_thread(tmp_path: Path) -> None:
    """The sub-agent's own failure and rerun make a record; its edit is part of the main thread's fix."""
    t = TranscriptBuilder()
    t.user("Fix the build.")
    t.bash("go build ./...", "Exit code 1\nmain.go:3:2: undefined: helper", is_error=True)
    first_sidechain = len(t.records)
    t.bash("go vet ./...", "Exit code 1\nutil.go:9:1: missing return", is_error=True)
    t.edit("util.go", "func f() int {}", "func f() int { return 0 }")
    t.edit("main.go", "helper()", "util.Helper()")
    t.bash("go vet ./...", "")
    last_sidechain = len(t.records)
    t.bash("go build ./...", "")
    for record in t.records[first_sidechain:last_sidechain]:
        record["isSidechain"] = True

    records = extract_errors_resolved(t.read(tmp_path))

    assert [(r.error, r.fix, r.verification) for r in records] == [
        ("main.go:3:2: undefined: helper", "Edited main.go, util.go", "`go build ./...` passed"),
        ("util.go:9:1: missing return", "Edited util.go, main.go", "`go vet ./...` passed"),
    ]


def test_hiccups_and_warnings_are_not_errors(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Go.")
    t.call(
        "Edit",
        {"file_path": "/p/a.py", "old_string": "x", "new_string": "y"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        is_error=True,
    )
    t.call(
        "Edit",
        {"file_path": "/p/a.py", "old_string": "x", "new_string": "x"},
        "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>",
        is_error=True,
    )
    t.edit("a.py", "z", "y")
    t.bash("cd data && make", "(eval):cd:1: no such file or directory: data", is_error=True)
    t.bash("make", "done")
    t.bash("rm old.txt", "Exit code 1\nrm: old.txt: No such file or directory", is_error=True)
    t.bash("rm new.txt", "")
    t.bash(
        "pip install -e .",
        "ERROR: pip's dependency resolver does not currently take into account all the packages\n"
        "Successfully installed app-1.0",
    )
    t.bash("cargo build", "warning: unused variable: `x`\n    Finished `dev` profile")
    t.bash("cargo build", "    Finished `dev` profile")
    t.bash("bun test", "error: Item 3 failed\n    at runNext (src/limiter.ts:55:5)\n 12 pass\n 0 fail")
    t.bash("bun test", " 12 pass\n 0 fail")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_a_script_that_cannot_find_what_it_sources_is_an_error(tmp_path: Path) -> None:
    """Not `ls` of a missing file: a script of the work stopped at its line 28 (bash's own form)."""
    t = TranscriptBuilder()
    t.user("Set up the feature branch.")
    t.bash(
        'tmp=$(mktemp); tr -d \'\\r\' < .specify/scripts/bash/setup-plan.sh > "$tmp"; bash "$tmp" --json',
        "Exit code 1\n/tmp/tmp.BpSznhzbvo: line 28: /tmp/common.sh: No such file or directory",
        is_error=True,
    )
    [record] = extract_errors_resolved(t.read(tmp_path))
    assert record.error == "/tmp/tmp.BpSznhzbvo: line 28: /tmp/common.sh: No such file or directory"


def test_the_failing_line_is_stored_not_the_first_line(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Lint and build.")
    t.bash(
        "ruff check . && ruff format --check .",
        "Exit code 1\nAll checks passed!\nWould reformat: app.py\n1 file would be reformatted",
        is_error=True,
    )
    t.bash("ruff format app.py", "1 file reformatted")
    t.bash("ruff check . && ruff format --check .", "All checks passed!\n3 files already formatted")
    maven = (
        "Exit code 1\n[INFO] Scanning for projects...\n[INFO] BUILD FAILURE\n[ERROR] COMPILATION ERROR :\n"
        "[ERROR] /p/src/main/java/App.java:[10,5] cannot find symbol\n[ERROR] -> [Help 1]"
    )
    t.bash("mvn -q compile", maven, is_error=True)
    t.edit("src/main/java/App.java", "Foo.bar()", "Bar.foo()")
    t.bash("mvn -q compile", "")

    ruff, maven_record = extract_errors_resolved(t.read(tmp_path))

    assert ruff.error == "Would reformat: app.py"
    assert ruff.fix == "Ran `ruff format app.py`"
    assert maven_record.error == "[ERROR] /p/src/main/java/App.java:[10,5] cannot find symbol"


def test_a_check_whose_output_is_full_of_errors_did_not_pass(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Type check.")
    t.bash(
        "npx tsc --noEmit | head",
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    )
    t.bash(
        "npx tsc --noEmit | head",
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    )

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error.startswith("src/a.ts(3,7): error TS2322")
    assert (record.fix, record.verification) == ("", "")  # still failing: never resolved


RUSTC_ERRORS = (
    "Exit code 101\n"
    + "\n".join(
        f"error[{code}]: {message}\n --> src/lib.rs:{n}:1"
        for n, (code, message) in enumerate(
            [
                ("E0308", "mismatched types"),
                ("E0425", "cannot find value `x` in this scope"),
                ("E0308", "mismatched types"),
                ("E0599", "no method named `foo` found"),
                ("E0433", "failed to resolve: use of undeclared type `Map`"),
                ("E0382", "borrow of moved value: `v`"),
                ("E0277", "the trait bound `T: Copy` is not satisfied"),
                ("E0061", "this function takes 2 arguments but 1 argument was supplied"),
            ],
            start=1,
        )
    )
    + "\nerror: could not compile `demo` due to 8 previous errors"
)


def test_every_distinct_error_code_is_searchable(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Build.")
    t.bash("cargo build", RUSTC_ERRORS, is_error=True)
    t.edit("src/lib.rs", "a", "b")
    t.bash("cargo build", "    Finished `dev` profile")

    records = extract_errors_resolved(t.read(tmp_path))

    assert [r.error.split(":")[0] for r in records] == [
        "error[E0308]",
        "error[E0425]",
        "error[E0599]",
        "error[E0433]",
        "error[E0382]",
    ]
    assert records[-1].error.endswith("(also: E0277; E0061)")
    stored = " ".join(r.error for r in records)
    for code in ("E0308", "E0425", "E0599", "E0433", "E0382", "E0277", "E0061"):
        assert code in stored


def test_errors_pasted_by_the_user_count_once_a_check_passes_after_a_change(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user(
        "when running `make test` I get these errors:\n\n"
        "pkg/a_test.go:76:31: invalid operation: x != y (mismatched types ID and string)\n"
        "pkg/a_test.go:90:12: undefined: helper"
    )
    t.bash("go test ./pkg/...", "ok  \tpkg\t0.1s")  # before any change: proves nothing
    t.edit("pkg/a_test.go", "x != y", "x.String() != y")
    t.edit("pkg/a_test.go", "helper()", "newHelper()")
    t.bash("go test ./pkg/...", "ok  \tpkg\t0.2s")

    records = extract_errors_resolved(t.read(tmp_path))

    assert [(r.error, r.fix, r.verification) for r in records] == [
        (
            "pkg/a_test.go:76:31: invalid operation: x != y (mismatched types ID and string)",
            "Edited pkg/a_test.go",
            "`go test ./pkg/...` passed",
        ),
        ("pkg/a_test.go:90:12: undefined: helper", "Edited pkg/a_test.go", "`go test ./pkg/...` passed"),
    ]


def test_pasted_error_without_a_passing_check_is_not_resolved(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("It crashes on start:\nTypeError: createLogger is not a function\n    at main (index.ts:3:5)")
    t.edit("index.ts", "createLogger()", "logger")
    t.say("I changed the import; please try again.")

    [record] = extract_errors_resolved(t.read(tmp_path))  # the user reported it: an error all the same

    assert record.error == "TypeError: createLogger is not a function"
    assert (record.fix, record.verification) == ("", "")


def test_an_error_named_in_passing_is_not_a_paste(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("I see TypeError: createLogger is not a function when I start it")
    t.edit("index.ts", "createLogger()", "logger")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_a_wrapper_that_fails_is_resolved_by_running_without_it(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "rtk bun run test",
        "Exit code 2\nerror: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS]",
        is_error=True,
    )
    t.bash("bun run test", " 40 pass\n 0 fail")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "rtk: error: unrecognized subcommand 'bun'"  # the line alone names no program
    assert record.fix == "Ran `bun run test` instead of `rtk bun run test`"
    assert record.verification == "`bun run test` passed"


def test_a_merge_conflict_is_resolved_when_the_merge_is_committed(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Merge main.")
    t.bash(
        "git merge origin/main",
        "Exit code 1\nAuto-merging a.go\nCONFLICT (content): Merge conflict in a.go\n"
        "Automatic merge failed; fix conflicts and then commit the result.",
        is_error=True,
    )
    t.edit("a.go", "<<<<<<< HEAD", "")
    t.bash("git add a.go && git commit --no-edit", "[main 1a2b3c] Merge origin/main")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "CONFLICT (content): Merge conflict in a.go"
    assert record.fix == "Edited a.go"


def test_an_error_that_comes_back_was_not_fixed(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Start it.")
    t.bash(
        "npm start",
        "Exit code 1\nerror: Failed to start: Class constructors cannot be invoked without 'new'",
        is_error=True,
    )
    t.edit("logger.ts", "a", "b")
    t.bash("npm start", "Exit code 1\nTypeError: createLogger is not a function", is_error=True)
    t.edit("index.ts", "createLogger()", "logger")
    t.bash(
        "npm start",
        "Exit code 1\nerror: Failed to start: Class constructors cannot be invoked without 'new'",
        is_error=True,
    )

    record, back = extract_errors_resolved(t.read(tmp_path))  # the one that came back, as of then

    assert back.error == "error: Failed to start: Class constructors cannot be invoked without 'new'"
    assert back.fix == ""  # it came back after the edit: not fixed
    assert record.error == "TypeError: createLogger is not a function"
    assert record.fix == "Edited index.ts"
    assert record.verification == "rerun of `npm start` no longer reports it"


@pytest.mark.parametrize(
    "said",
    [
        "This might be because the fixture changed. The error is probably due to the cache.",  # hedged
        "I’ve got the root cause. Root cause:",  # announced, not said
        "I'm using the publish workflow because this request includes the PR handoff.",  # why it acts
        "I’m checking the test now because the output suggests an ordering assumption.",  # so is this
    ],
)
def test_what_explains_no_failure_is_not_a_root_cause(tmp_path: Path, said: str) -> None:
    t = TranscriptBuilder()
    t.user("Fix it.")
    t.bash("pytest", "Exit code 1\nE   KeyError: 'id'\n1 failed", is_error=True)
    t.say(said)
    t.edit("app.py", "row['id']", "row.get('id')")
    t.bash("pytest", "4 passed")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.root_cause == ""


def test_why_a_call_failed_in_the_agents_words_is_its_root_cause(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the download.")
    t.bash(
        "curl -f https://api.example.com/v1/x",
        "Exit code 22\ncurl: (22) The requested URL returned error: 403",
        is_error=True,
    )
    t.say("I'm getting a 403 because the token lacks the read scope.")
    t.edit(".env", "SCOPES=write", "SCOPES=read,write")
    t.bash("curl -f https://api.example.com/v1/x", '{"ok": true}')

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.root_cause == "I'm getting a 403 because the token lacks the read scope."


def test_a_file_system_refusal_is_an_error(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Update the workflow.")
    t.call("Read", {"file_path": "/p/ci.yml"}, "EACCES: permission denied, open '/p/ci.yml'", is_error=True)
    t.bash("sudo chown me /p/ci.yml", "")
    t.call("Read", {"file_path": "/p/ci.yml"}, "name: ci")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "EACCES: permission denied, open '/p/ci.yml'"
    assert record.verification == "Read of ci.yml succeeded"


def test_rerunning_from_another_folder_is_a_slip_not_a_fix(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Start the chart server.")
    t.bash("node serve.ts", "Exit code 1\nError: Cannot find module '/p/app/serve.ts'", is_error=True)
    t.bash("cd .. && node serve.ts", "listening on 8080")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_a_server_that_runs_until_the_time_limit_got_past_the_error(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Start the chart server.")
    t.bash(
        "node serve.ts",
        "Exit code 1\nError: listen EADDRINUSE: address already in use :::8080",
        is_error=True,
    )
    t.bash("kill 60782", "")
    t.bash(
        "node serve.ts",
        "Command timed out after 5s\nChart server running at http://localhost:8080/",
        is_error=True,
    )
    t.bash("pytest", "Exit code 1\nE   AssertionError: boom\n1 failed", is_error=True)
    t.edit("app.py", "a", "b")
    t.bash("pytest", "Command timed out after 2m 0.0s", is_error=True)  # a check that hung proves nothing

    record, hung = extract_errors_resolved(t.read(tmp_path))

    assert (hung.error, hung.fix) == ("AssertionError: boom", "")  # a check that hung proved nothing
    assert record.error == "Error: listen EADDRINUSE: address already in use :::8080"
    assert record.fix == "Ran `kill 60782`"
    assert record.verification == "`node serve.ts` kept running without the error until the time limit"


def test_a_type_checker_message_pasted_without_its_position(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user(
        "fix this: cannot use err (variable of interface type error) as string value in argument to fmt.Fprintf"
    )
    t.edit("cmd/root.go", 'fmt.Fprintf(w, "%s", err)', 'fmt.Fprintf(w, "%s", err.Error())')
    t.bash("go build ./...", "")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert (
        record.error
        == "cannot use err (variable of interface type error) as string value in argument to fmt.Fprintf"
    )
    assert record.verification == "`go build ./...` passed"


SYNC_WITH_ERRORS = """Found 3 logs
Error processing a1.jsonl: bad escape \\U at position 2
Error processing b2.jsonl: bad escape \\U at position 2
Synced 1 file"""


def test_errors_a_script_printed_while_exiting_0_count_once_the_same_command_runs_clean(
    tmp_path: Path,
) -> None:
    t = TranscriptBuilder()
    t.user("Sync the logs.")
    t.bash("python scripts/sync.py", SYNC_WITH_ERRORS)
    t.edit("scripts/sync.py", r'"C:\Users"', r'r"C:\Users"')
    # Another command of the kind, still printing the message (for another file): not past it.
    t.bash("python scripts/sync.py 2>&1 | tail -5", "Warning: c3.jsonl line 4: bad escape \\U at position 2")
    t.bash("python scripts/sync.py", "Error processing c3.jsonl: bad escape \\U at position 2")
    t.edit("scripts/sync.py", "PATTERNS = [a, b]", "PATTERNS = [a]")
    t.bash("python scripts/sync.py", "Found 3 logs\nSynced 3 files")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "Error processing a1.jsonl: bad escape \\U at position 2"
    assert record.fix == "Edited scripts/sync.py"
    assert record.verification == "`python scripts/sync.py` succeeded"


def test_errors_printed_while_exiting_0_need_the_same_command_and_a_change(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Try the CLI's error messages.")
    t.bash("./cli bad-input; echo $?", "Error: invalid input: bad-input\n0")
    t.bash("./cli good-input; echo $?", "ok\n0")  # another command: not a rerun of the failing one
    t.bash("python scripts/sync.py", "Error processing a.json: bad escape \\U at position 2")
    t.bash("python scripts/sync.py", "Synced 3 files")  # nothing changed in between: not a fix
    t.bash("go test ./...", "Error: connection refused (expected in test)\nok  \tpkg\t0.1s\n3 passed")

    assert extract_errors_resolved(t.read(tmp_path)) == []


NEXT_PROMPT = (
    "\x1b[?25l\x1b[36m?\x1b[39m Would you like your code inside a `src/` directory? \x1b[90m›\x1b[39m No / Yes\n"
    'npm warn Unknown env config "store-dir".'
)
NEXT_PROMPT_2 = "? Would you like to customize the import alias? › No / Yes"


def test_a_command_left_waiting_at_an_interactive_prompt_did_not_run(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Create the app.")
    t.bash("npx create-next-app@latest todo --typescript", NEXT_PROMPT)
    t.bash('echo "" | npx create-next-app@latest todo --src-dir', NEXT_PROMPT_2)  # the same stall
    t.bash("echo done", "done")  # not the scaffolder: proves nothing about it
    t.bash(
        'yes "" | npx create-next-app@latest todo --src-dir --no-turbopack',
        "✔ Would you like to customize the import alias? … No / Yes\nSuccess! Created todo at /p/todo",
    )

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == (
        "`npx create-next-app@latest` waited for an answer at an interactive prompt: "
        "? Would you like your code inside a `src/` directory? › No / Yes"
    )
    assert record.fix.startswith('Ran `yes "" | npx create-next-app@latest todo --src-dir --no-turbopack`')
    assert (
        record.verification == '`yes "" | npx create-next-app@latest todo --src-dir --no-turbopack` succeeded'
    )


def test_a_prompt_that_was_answered_is_not_a_stall(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Create the app.")
    t.bash("npx create-vite@latest app", "✔ Project name? … app\nDone. Now run: npm install")
    t.bash("npx create-vite@latest app2", "Scaffolding project in /p/app2...\nDone.")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_a_run_that_still_prints_the_error_does_not_prove_it_gone(tmp_path: Path) -> None:
    failing = 'error: Failed to start service: Class constructors cannot be invoked without \'new\' {"timestamp":"%s"}'
    t = TranscriptBuilder()
    t.user("Start the service.")
    t.bash("npm start", "Exit code 1\n" + failing % "2025-07-22 19:28:04", is_error=True)
    t.edit("index.ts", "a", "b")
    t.bash("npm start 2>&1 | head -50", failing % "2025-07-22 19:29:13")  # a pipe hid the exit code
    t.edit("database.ts", "new sqlite3.verbose().Database(p)", "new (sqlite3.verbose().Database)(p)")
    t.bash("npm start", "Command timed out after 2m 0.0s\ninfo: Service started")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == failing % "2025-07-22 19:28:04"
    assert record.fix == "Edited index.ts, database.ts"
    assert record.verification == "`npm start` kept running without the error until the time limit"


def test_saying_where_the_issue_is_is_not_a_root_cause(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "pytest -q",
        "Exit code 1\nE   TypeError: Class constructors cannot be invoked\n1 failed",
        is_error=True,
    )
    t.edit("db.py", "a", "b", text="The issue is on line 42. The constructor is called without `new`.")
    t.bash("pytest -q", "3 passed in 0.1s")
    t.bash("npm test", "Exit code 1\nError: Cannot find module 'x'\n1 failed", is_error=True)
    t.edit("package.json", "a", "b", text="The problem is that `x` was never installed.")
    t.bash("npm test", "3 passed")

    first, second = extract_errors_resolved(t.read(tmp_path))

    assert first.root_cause == ""
    assert second.root_cause == "The problem is that x was never installed."


def test_a_clean_run_naming_the_same_file_still_proves_the_error_gone(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the app.")
    t.bash(
        "python app.py",
        "Exit code 1\nFileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'",
        is_error=True,
    )
    t.write("config.yaml", "port: 1\n")
    t.bash("python app.py", "Loaded 'config.yaml'\nServing on port 1")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "FileNotFoundError: [Errno 2] No such file or directory: 'config.yaml'"
    assert record.fix == "Created config.yaml"


def test_a_script_that_fails_item_after_item_fails_though_it_exits_0(tmp_path: Path) -> None:
    failing = "Found 3 logs\n" + "".join(
        f"Error processing {name}.jsonl: bad escape \\U at position 2\n" for name in ("a1", "b2", "c3")
    )
    t = TranscriptBuilder()
    t.user("Sync the logs.")
    t.bash("python scripts/sync.py", failing)
    t.edit("scripts/sync.py", 'r"C:\\\\Users"', "")
    t.bash(
        "python scripts/sync.py", "Error processing a1.jsonl: bad escape \\U at position 2\n"
    )  # back again
    t.edit("scripts/sync.py", "re.sub(p, r, text)", "re.sub(p, lambda _: r, text)")
    t.bash("python scripts/sync.py", "Found 3 logs\nSynced 3 logs")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == "Error processing a1.jsonl: bad escape \\U at position 2"  # once, not per item
    assert (
        record.fix == "Edited scripts/sync.py" and record.verification == "`python scripts/sync.py` succeeded"
    )


def test_one_error_line_per_item_is_not_a_failure_pattern_alone(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run it.")
    t.bash("python tool.py", "Error handling is described in docs/errors.md: see there\nDone")
    t.bash("python tool.py", "Done")
    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_output_with_no_line_of_a_known_form_is_named_by_its_conclusion(tmp_path: Path) -> None:
    """Not its first line (a banner, an echo of the command): the last line saying what failed."""
    t = TranscriptBuilder()
    t.user("Deploy the site.")
    t.bash(
        "./deploy.sh",
        "Deploying build 42 to production\nUploading 12 assets\nUpload refused: bucket quota exceeded for site-prod",
        is_error=True,
    )
    t.edit("/p/deploy.sh", "BUCKET=site-prod", "BUCKET=site-prod-2")
    t.bash("./deploy.sh", "Deploying build 42 to production\nDone")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == "Upload refused: bucket quota exceeded for site-prod"


def test_a_failed_test_is_written_with_what_its_report_says(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the cart total.")
    t.bash(
        "npx jest",
        "PASS src/a.test.ts\nFAIL src/cart.test.ts\n  ● cart › total\n\n    expect(received).toBe(expected)\n\n"
        "    Expected: 30\n    Received: 25\n\nTests: 1 failed, 4 passed",
        is_error=True,
    )
    t.edit("/p/src/cart.ts", "a + b", "a + b + c")
    t.bash("npx jest", "Tests: 5 passed")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "FAIL src/cart.test.ts / cart › total / expect(received).toBe(expected) / Expected: 30 / Received: 25"
    )


def test_each_failed_jest_case_of_a_verbose_run_is_a_row_with_its_report(tmp_path: Path) -> None:
    # Jest's verbose listing (✓ / ✕ per case) comes between the file line and the `●` blocks that
    # say what failed; each block is one failed case, without its code frame or stack.
    t = TranscriptBuilder()
    t.user("Fix the maths helpers.")
    t.bash(
        "npx jest --verbose",
        "FAIL src/math.test.js\n  add\n    ✓ adds positive numbers (2 ms)\n    ✕ adds negative numbers (3 ms)\n"
        "  div\n    ✕ rejects zero (1 ms)\n\n  ● add › adds negative numbers\n\n"
        "    expect(received).toBe(expected) // Object.is equality\n\n    Expected: -3\n    Received: -1\n\n"
        "      10 |   it('adds negative numbers', () => {\n    > 11 |     expect(add(-1, -2)).toBe(-3);\n"
        "         |                         ^\n\n      at Object.toBe (src/math.test.js:11:25)\n\n"
        "  ● div › rejects zero\n\n    RangeError: division by zero was not rejected\n\n"
        "      at Object.<anonymous> (src/math.test.js:20:5)\n\n"
        "PASS src/other.test.js\nTest Suites: 1 failed, 1 passed, 2 total\nTests:       2 failed, 3 passed, 5 total",
        is_error=True,
    )
    t.edit("/p/src/math.js", "a - b", "a + b")
    t.bash("npx jest", "Tests: 5 passed")
    assert [r.error for r in extract_errors_resolved(t.read(tmp_path))] == [
        "FAIL src/math.test.js / add › adds negative numbers / expect(received).toBe(expected) // Object.is"
        " equality / Expected: -3 / Received: -1",
        "FAIL src/math.test.js / div › rejects zero / RangeError: division by zero was not rejected",
    ]


def test_a_vitest_failure_is_its_case_and_message_without_the_diff_legend(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "npx vitest run",
        " FAIL  src/math.test.ts > add > adds negative numbers\n"
        "AssertionError: expected -1 to be -3 // Object.is equality\n\n- Expected\n+ Received\n\n- -3\n+ -1\n\n"
        " ❯ src/math.test.ts:12:25\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)",
        is_error=True,
    )
    t.edit("/p/src/math.ts", "a - b", "a + b")
    t.bash("npx vitest run", "Tests  5 passed (5)")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "FAIL src/math.test.ts > add > adds negative numbers / AssertionError: expected -1 to be -3 // Object.is equality"
    )


def test_each_test_vitest_listed_as_failed_is_recorded_where_its_report_was_cut(tmp_path: Path) -> None:
    """A long run is kept as its head and tail: Vitest's listing (`×` over `→`) is in the head, the
    reports of the first failures were in the middle, cut; the listing still names each one."""
    dom = "\n".join(f"  <a href=/p{i}>Go {i}</a>" for i in range(400))
    t = TranscriptBuilder()
    t.user("Run the component tests.")
    t.bash(
        "npx vitest run src/components/",
        " ❯ src/components/Choice.test.tsx (2 tests | 1 failed) 36ms\n"
        '   × Choice > links to the page 24ms\n     → Found multiple elements with the role "link"\n'
        " ❯ src/components/Page.test.tsx (4 tests | 1 failed) 53ms\n   ✓ Page > renders the title 3ms\n"
        "   × Page > renders choice buttons 6ms\n     → Found multiple elements with the text: Go left\n"
        f"{dom}\n"
        " FAIL  src/components/Page.test.tsx > Page > renders choice buttons\n"
        "TestingLibraryElementError: Found multiple elements with the text: Go left\n"
        " Test Files  2 failed (2)\n      Tests  2 failed | 4 passed (6)",
        is_error=True,
    )
    t.edit("/p/vitest.setup.ts", "", "afterEach(() => cleanup())")
    t.bash("npx vitest run src/components/", "Tests  6 passed (6)")

    records = extract_errors_resolved(t.read(tmp_path))

    assert [r.error for r in records] == [
        "FAIL src/components/Page.test.tsx > Page > renders choice buttons / TestingLibraryElementError: Found"
        " multiple elements with the text: Go left",
        '× Choice > links to the page → Found multiple elements with the role "link"',
    ]
    assert all("vitest.setup.ts" in r.fix for r in records)


def test_a_powershell_error_is_its_head_and_the_message_under_the_code(tmp_path: Path) -> None:
    # PowerShell 7 prints the message below the line of code it points at; Windows PowerShell
    # prints it after the script's name, over an `At line:` line.
    t = TranscriptBuilder()
    t.user("Land the verdict.")
    t.bash(
        "./scripts/Land-Verdict.ps1",
        "Checking verdict\nException: C:\\repo\\scripts\\Land-Verdict.ps1:45:5\nLine |\n"
        '  45 |      throw "Working tree is not clean"\n     |      ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n'
        "     | Working tree is not clean\n",
        is_error=True,
    )
    t.bash(
        "./scripts/board.ps1 -Sync",
        "C:\\repo\\scripts\\board.ps1 : Board file not found: board.json\nAt line:1 char:1\n"
        "+ .\\scripts\\board.ps1 -Sync\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "    + CategoryInfo          : NotSpecified: (:) [Write-Error], WriteErrorException\n",
        is_error=True,
    )
    assert [r.error for r in extract_errors_resolved(t.read(tmp_path))] == [
        "Exception: C:\\repo\\scripts\\Land-Verdict.ps1:45:5 / Working tree is not clean",
        "C:\\repo\\scripts\\board.ps1 : Board file not found: board.json",
    ]


def test_a_workspace_runners_prefix_does_not_hide_the_failing_line(tmp_path: Path) -> None:
    # pnpm's recursive run and Turborepo put the package and script before every line.
    t = TranscriptBuilder()
    t.user("Run the workspace tests and build.")
    t.bash(
        "pnpm -r test",
        "packages/core test$ vitest run\npackages/core test:  RUN  v1.6.0 /repo/packages/core\n"
        "packages/core test:  FAIL  src/math.test.ts > add > adds negative numbers\n"
        "packages/core test: AssertionError: expected -1 to be -3 // Object.is equality\n"
        "packages/core test:       Tests  1 failed | 2 passed (3)\n/repo/packages/core:\n"
        " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @x/core@1.0.0 test: `vitest run`\nExit status 1",
        is_error=True,
    )
    t.bash(
        "pnpm turbo build",
        "@app/web:build: > next build\n@app/web:build: Failed to compile.\n@app/web:build: ./src/page.tsx:12:5\n"
        "@app/web:build: Type error: Property 'x' does not exist on type 'Props'.\n"
        "@app/web:build: ERROR: command finished with error: command (/repo/apps/web) pnpm run build exited (1)\n"
        " ERROR  run failed: command  exited (1)",
        is_error=True,
    )
    assert [r.error for r in extract_errors_resolved(t.read(tmp_path))] == [
        "FAIL src/math.test.ts > add > adds negative numbers / AssertionError: expected -1 to be -3 // Object.is equality",
        "Type error: Property 'x' does not exist on type 'Props'.",
    ]


def test_a_rust_panic_is_its_place_and_the_message_on_the_next_line(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "cargo test",
        "Exit code 101\nrunning 2 tests\ntest api::sends ... FAILED\nfailures:\n---- api::sends stdout ----\n"
        "thread 'api::sends' (3489) panicked at /home/u/.cargo/registry/src/wiremock-0.6.5/src/builder.rs:107:46:\n"
        "Failed to bind an OS port for a mock server.: Os { code: 1 }\n"
        "test result: FAILED. 1 passed; 1 failed",
        is_error=True,
    )
    t.bash("cargo test -- --test-threads=1", "test result: ok. 2 passed; 0 failed")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error.endswith(
        "builder.rs:107:46: Failed to bind an OS port for a mock server.: Os { code: 1 }"
    )
    assert record.error.startswith("panicked at ")


def test_a_refused_push_is_the_reason_git_gave_before_its_conclusion(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Push it.")
    t.bash(
        "git push origin main",
        "Exit code 1\nTo https://github.com/o/r.git\n ! [rejected]          main -> main (fetch first)\n"
        "error: failed to push some refs to 'https://github.com/o/r.git'\n"
        "hint: Updates were rejected because the remote contains work that you do not",
        is_error=True,
    )
    t.bash("git pull --rebase", "Successfully rebased and updated refs/heads/main.")
    t.bash("git push origin main", "To https://github.com/o/r.git\n   1a2b..3c4d  main -> main")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "! [rejected] main -> main (fetch first) / "
        "error: failed to push some refs to 'https://github.com/o/r.git'"
    )


def test_a_push_blocked_by_the_server_keeps_the_reasons_it_listed(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Push it.")
    t.bash(
        "git push",
        "Exit code 1\nremote: error: GH013: Repository rule violations found for refs/heads/x.\n"
        "remote: \nremote:     - Push cannot contain secrets\nremote:        locations:\n"
        "remote:          - commit: ffe9ab782252faaf8cfd\n"
        "error: failed to push some refs to 'https://github.com/o/r.git'",
        is_error=True,
    )
    t.bash("git commit --amend -a --no-edit", "[x 3c4d] Add redaction tests")
    t.bash("git push", "To https://github.com/o/r.git\n   1a2b..3c4d  x -> x")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "remote: error: GH013: Repository rule violations found for refs/heads/x. / Push cannot contain secrets / "
        "error: failed to push some refs to 'https://github.com/o/r.git'"
    )


def test_a_task_runners_tags_are_read_past_and_its_failure_seen_through_a_pipe(tmp_path: Path) -> None:
    """mise prefixes each line with its task (`[lint:go] `) and ends a failed one with `ERROR task
    failed`, which a `| tail` keeps though it hides the exit status."""
    t = TranscriptBuilder()
    t.user("Run the checks.")
    t.bash(
        "mise run check 2>&1 | tail -20",
        "[fmt] $ gofmt -s -w .\n[lint:gofmt] These .go files need to be formatted:\n"
        "[lint:gofmt] tokenmanager/tokenmanager_test.go\n"
        "[lint:go] sts/sts.go:187:10: ST1005: error strings should not be capitalized (staticcheck)\n"
        "[lint:go] ERROR task failed",
    )
    t.edit("/p/sts/sts.go", 'errors.New("Bad")', 'errors.New("bad")')
    t.bash("mise run check 2>&1 | tail -20", "[lint:go] Finished in 1.2s")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert (
        record.error
        == "[lint:go] sts/sts.go:187:10: ST1005: error strings should not be capitalized (staticcheck)"
    )
    assert error_signature(record.error) == error_signature(record.error.removeprefix("[lint:go] "))


def test_a_formatters_complaint_names_the_files_on_the_next_line(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Check formatting.")
    t.bash(
        "./lint.sh",
        "Exit code 1\nThese .go files need to be formatted:\ninternal/syncer/syncer.go",
        is_error=True,
    )
    t.bash("gofmt -w internal/syncer/syncer.go", "")
    t.bash("./lint.sh", "ok")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == "These .go files need to be formatted: internal/syncer/syncer.go"


def test_a_caused_by_chain_gives_its_deepest_cause(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run it.")
    t.bash(
        "cargo run --bin hk -- check",
        "Exit code 101\nthread 'main' (3416) panicked at src/settings.rs:101:30:\n"
        "Failed to load configuration: Failed to read config file: /w/hk/hk.pkl\n\nCaused by:\n"
        "    Failed to evaluate Pkl config at /w/hk/hk.pkl\n\n    Import not found: /w/hk/pkl/Builtins.pkl\n"
        "Location: src/settings.rs:101",
        is_error=True,
    )
    t.bash("cargo run --bin hk -- check", "ok")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error.startswith("panicked at src/settings.rs:101:30: Failed to load configuration")
    assert record.error.endswith(" / Import not found: /w/hk/pkl/Builtins.pkl")


def test_a_note_after_the_cause_is_advice_not_the_cause(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Package it.")
    t.bash(
        "cargo package",
        "Exit code 101\nerror: failed to verify manifest at `/w/app/Cargo.toml`\n\nCaused by:\n"
        "  all dependencies must have a version requirement specified when packaging.\n"
        "  dependency `aqua-registry` does not specify a version\n"
        "  Note: The packaged dependency will use the version from crates.io,\n"
        "  the `path` specification will be removed from the dependency declaration.",
        is_error=True,
    )
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "error: failed to verify manifest at `/w/app/Cargo.toml` / "
        "dependency `aqua-registry` does not specify a version"
    )


def test_a_failed_command_stopped_at_a_question_over_its_choices(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Lint it.")
    t.bash(
        "npm run lint",
        "Exit code 1\n> app@0.1.0 lint\n> next lint\n"
        "`next lint` is deprecated and will be removed in Next.js 16.\n"
        "For new projects, use create-next-app to choose your preferred linter.\n"
        "? How would you like to configure ESLint? https://nextjs.org/docs/app/api-reference/config/eslint\n"
        "\u276f  Strict (recommended)\n   Base\n   Cancel",
        is_error=True,
    )
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert record.error == (
        "`npm lint` waited for an answer at an interactive prompt: "
        "? How would you like to configure ESLint? https://nextjs.org/docs/app/api-reference/config/eslint"
    )


def test_a_request_that_failed_to_reach_its_server_is_an_error_though_the_pipe_exits_0(
    tmp_path: Path,
) -> None:
    t = TranscriptBuilder()
    t.user("Post the discussion.")
    t.bash(
        "gh api graphql -f query='mutation { x }' --jq '.data'",
        'Post "https://api.github.com/graphql": net/http: TLS handshake timeout',
    )
    t.bash("curl -s localhost:3000/health | jq .", "curl: (7) Failed to connect to localhost port 3000")
    t.bash("curl -s localhost:3000/health | jq .", '{"ok": true}')
    records = extract_errors_resolved(t.read(tmp_path))
    assert [r.error for r in records] == [
        'Post "https://api.github.com/graphql": net/http: TLS handshake timeout',
        "curl: (7) Failed to connect to localhost port 3000",
    ]
    # The same request answered later: seen gone, with nothing done in between to name as the fix.
    assert (records[1].fix, records[1].verification) == ("", "`curl -s localhost:3000/health | jq .` passed")


def test_a_deprecation_notice_is_never_the_failing_line(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Build it.")
    t.bash(
        "npm run build",
        "Exit code 1\n> next lint\n`next lint` is deprecated and will be removed in Next.js 16.\n"
        "For new projects, use create-next-app to choose your preferred linter.",
        is_error=True,
    )
    t.edit("eslint.config.mjs", "a", "b")
    t.bash("npm run build", "Compiled successfully")
    (record,) = extract_errors_resolved(t.read(tmp_path))
    assert "deprecated" not in record.error


# One failing call, never resolved: the lines recorded for it (which line a careful reader writes
# down, and which failures are no error of the work at all).
_ONE_CALL = [
    pytest.param(
        "pytest -v",
        "Exit code 1\ntests/t.py::test_a FAILED\ntests/t.py::test_b PASSED\ntests/t.py::test_c FAILED\n"
        "___ test_a ___\nE   AssertionError: assert 1 == 2\n___ test_c ___\nE   assert 'x' in 'y'\n"
        "=== short test summary info ===\n"
        "FAILED tests/t.py::test_a - AssertionError: assert 1 == 2\n"
        "FAILED tests/t.py::test_c - assert 'x' in 'y'\n2 failed, 1 passed",
        [
            "FAILED tests/t.py::test_a - AssertionError: assert 1 == 2",
            "FAILED tests/t.py::test_c - assert 'x' in 'y'",
        ],
        id="pytest's summary names each failed test with its message",
    ),
    pytest.param(
        "go test ./...",
        "Exit code 1\n--- FAIL: TestWait (0.00s)\n    wait_test.go:34: got 2, want 3\n"
        "FAIL\nFAIL\texample.com/auth/wait\t0.010s\nFAIL",
        ["--- FAIL: TestWait (0.00s) / wait_test.go:34: got 2, want 3"],
        id="a go test failure is the test with what it reported",
    ),
    pytest.param(
        "go test ./...",
        "Exit code 1\n# example.com/cli\ncli/explain_test.go:797:70: too many arguments in call to format\n"
        "FAIL\texample.com/cli [build failed]\nFAIL",
        ["cli/explain_test.go:797:70: too many arguments in call to format"],
        id="a go package line is no test; its build errors are the failure",
    ),
    pytest.param(
        "npx next build",
        "Exit code 1\n   Linting and checking validity of types ...\n> Build error occurred\n"
        "[TypeError: generate is not a function]",
        ["> Build error occurred [TypeError: generate is not a function]"],
        id="a headline that only says it failed keeps the line that says what",
    ),
    pytest.param(
        "gh run view 28943891068 --log-failed",
        "Exit code 1\nrun 28943891068 is still in progress; logs will be available when it is complete",
        [],
        id="a CI run still in progress is no error",
    ),
    pytest.param(
        'pkill -f "node serve.ts"', "Error", [], id="a bare Error (pkill matched nothing) names nothing"
    ),
    pytest.param(
        "Get-ChildItem -Path C:\\skills\\ROUTER.md",
        "Get-ChildItem : Cannot find path 'C:\\skills\\ROUTER.md' because it does not exist.",
        [],
        id="a PowerShell lookup of a missing path is looking, not failing",
    ),
    pytest.param(
        "npm run lint",
        "Exit code 1\n\n> app@0.1.0 lint\n> next lint\n\nInvalid Options: Unknown options: useEslintrc",
        [],
        id="a line in no known form, never got past, is a guess: no record",
    ),
    pytest.param(
        "git add src/app/(protected)/page.tsx",
        "Exit code 2\nbash: -c: line 0: syntax error near unexpected token `('",
        [],
        id="a command line the shell could not parse is a typo",
    ),
    pytest.param(
        "ls -l deploy.yml && chmod 644 deploy.yml",
        "Exit code 1\nchmod: changing permissions of 'deploy.yml': Operation not permitted\n\n"
        "-rw------- 1 root root 1290 Dec 31 21:58 deploy.yml",
        ["chmod: changing permissions of 'deploy.yml': Operation not permitted"],
        id="a line that looks and then changes a file is no lookup; the system's refusal is its error",
    ),
    pytest.param(
        "sudo cat /etc/app/config.yml",
        "Exit code 1\nsudo: a terminal is required to read the password; either use the -S option",
        ["sudo: a terminal is required to read the password; either use the -S option"],
        id="sudo that cannot ask for a password could not run the command, lookup or not",
    ),
    pytest.param(
        "rmdir build && ls",
        "Exit code 1\nrmdir: build: Directory not empty",
        [],
        id="a folder not empty is tidying, not failing",
    ),
]


@pytest.mark.parametrize(("command", "output", "recorded"), _ONE_CALL)
def test_one_failing_call_never_resolved(
    tmp_path: Path, command: str, output: str, recorded: list[str]
) -> None:
    t = TranscriptBuilder()
    t.user("Go.")
    t.bash(command, output, is_error=True)
    assert [r.error for r in extract_errors_resolved(t.read(tmp_path))] == recorded


def test_a_line_in_no_known_form_is_recorded_once_the_session_got_past_it(tmp_path: Path) -> None:
    """Which line of an unknown program's failure is its error is a guess; the session editing a
    file and rerunning the command clean makes it one worth a row (a package manager's echo of
    its script is never that line)."""
    t = TranscriptBuilder()
    t.user("Lint it.")
    failing = "Exit code 1\n\n> app@0.1.0 lint\n> next lint\n\nInvalid Options: Unknown options: useEslintrc"
    t.bash("npm run lint", failing, is_error=True)
    t.edit(".eslintrc.json", '"useEslintrc": false', "")
    t.bash("npm run lint", "No ESLint warnings or errors")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "Invalid Options: Unknown options: useEslintrc"
    assert "eslintrc" in record.fix


def test_a_sandbox_refusal_is_fixed_by_running_outside_it_not_by_the_edits_in_between(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Bump the version and run the tests.")
    t.bash(
        "cargo test",
        "Exit code 101\nerror: failed to download `x`\nCould not resolve host: static.crates.io",
        is_error=True,
    )
    t.edit("Cargo.toml", 'version = "1.0.0"', 'version = "1.1.0"')
    t.call("Bash", {"command": "cargo test", "dangerouslyDisableSandbox": True}, "test result: ok. 3 passed")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.fix == "Re-ran `cargo test` outside the sandbox (escalated permissions)"


def test_a_failure_of_the_code_is_fixed_by_the_edits_though_the_rerun_left_the_sandbox(
    tmp_path: Path,
) -> None:
    t = TranscriptBuilder()
    t.user("Fix the build.")
    t.bash(
        "cargo build", "Exit code 101\nerror[E0308]: mismatched types\n --> src/main.rs:3:5", is_error=True
    )
    t.edit("src/main.rs", 'let x: u32 = "1";', "let x: u32 = 1;")
    t.call("Bash", {"command": "cargo build", "dangerouslyDisableSandbox": True}, "Finished dev profile")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.fix == "Edited src/main.rs"


def test_the_file_an_error_names_comes_first_in_its_fix(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the types.")
    t.bash(
        "pnpm check-types",
        "Exit code 2\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "src/b.ts(9,1): error TS2304: Cannot find name 'x'.",
        is_error=True,
    )
    t.edit("apps/web/src/a.ts", "'1'", "1")
    t.edit("apps/web/src/b.ts", "x", "y")
    t.bash("pnpm check-types", "")

    records = extract_errors_resolved(t.read(tmp_path))

    assert [r.fix for r in records] == [
        "Edited apps/web/src/a.ts, apps/web/src/b.ts",
        "Edited apps/web/src/b.ts, apps/web/src/a.ts",
    ]


def test_reading_the_same_ci_run_again_proves_nothing_gone_unless_it_was_run_again(tmp_path: Path) -> None:
    log = "build\tverify\t2026-01-02T10:00:01.1234567Z error: failed to verify package tarball\n"

    def session(*between: str) -> list[ErrorResolution]:
        t = TranscriptBuilder()
        t.user("Why did the release fail?")
        t.bash("gh run view 28943891 --log-failed | tail -40", log)
        t.edit("Cargo.toml", 'include = ["src/**"]', 'include = ["src/**", "src/shim.rb"]')
        for command in between:
            t.bash(command, "")
        t.bash(
            "gh run view 28943891 --json status,conclusion", '{"status":"completed","conclusion":"success"}'
        )
        return extract_errors_resolved(t.read(tmp_path))

    [open_] = session()
    assert (open_.error, open_.fix, open_.verification) == ("error: failed to verify package tarball", "", "")
    [rerun] = session("gh run rerun 28943891 --failed")
    assert rerun.verification.startswith("`gh run view 28943891 --json status,conclusion`")


def test_a_ci_log_read_back_is_the_work_failing(tmp_path: Path) -> None:
    """`gh run view --log-failed` is a lookup, but what it prints is the work failing in CI."""
    log = (
        "lint\tRun lint\t2026-01-02T10:00:00.1234567Z Running gofmt\n"
        "lint\tRun lint\t2026-01-02T10:00:01.1234567Z error: these files need formatting: a.go\n"
        "lint\tRun lint\t2026-01-02T10:00:01.2234567Z ##[error]Process completed with exit code 1.\n"
    )
    t = TranscriptBuilder()
    t.user("Why is CI red?")
    t.bash("gh run view 123 --log-failed | tail -20", log)
    t.bash("gofmt -w a.go")
    t.bash("gh run view 124 --log-failed", "")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "error: these files need formatting: a.go"
    assert record.fix == "Ran `gofmt -w a.go`"


def test_a_toolchain_too_old_is_fixed_by_running_on_another_one(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash(
        "cargo test --no-run",
        "Exit code 101\nerror: rustc 1.93.0 is not supported by the following package: kdl@6.7.1 requires rustc 1.95",
        is_error=True,
    )
    t.bash("rustup toolchain list", "stable-aarch64-apple-darwin (default)\n1.96.0-aarch64-apple-darwin")
    t.bash(
        "cargo +1.96.0 test --no-run", "Finished `test` profile [unoptimized + debuginfo] target(s) in 9.1s"
    )

    [record] = extract_errors_resolved(t.read(tmp_path))

    # `cargo +1.96.0 test` is `cargo test` on another toolchain; listing the toolchains fixed nothing.
    assert record.fix == "Ran `cargo +1.96.0 test --no-run` instead of `cargo test --no-run`"
    assert record.verification == "`cargo +1.96.0 test --no-run` passed"


def test_each_task_of_a_task_runner_is_its_own_kind_and_showing_less_output_fixes_nothing(
    tmp_path: Path,
) -> None:
    t = TranscriptBuilder()
    t.user("Run the checks.")
    vuln = "[lint:govulncheck] doc.go:18:1: package requires newer Go version go1.26 (application built with go1.25)"
    t.bash("mise run check 2>&1 | tail -80", f"{vuln}\n[lint:govulncheck] ERROR task failed", is_error=True)
    t.bash("mise run test 2>&1 | tail -30", "ok  example.com/auth 0.5s")  # another task: proves nothing
    t.bash("go install golang.org/x/vuln/cmd/govulncheck@latest", "")
    t.bash("mise run check 2>&1 | tail -25", "No vulnerabilities found.")
    fmt = "[lint:gofmt] These .go files need to be formatted: a_test.go"
    t.bash("mise run check 2>&1 | tail -20", f"{fmt}\n[lint:gofmt] ERROR task failed", is_error=True)
    t.bash("mise run check 2>&1 | tail -15", "No vulnerabilities found.")

    vulnerable, unformatted = extract_errors_resolved(t.read(tmp_path))

    assert vulnerable.fix == "Ran `go install golang.org/x/vuln/cmd/govulncheck@latest`"
    assert vulnerable.verification == "`mise run check 2>&1 | tail -25` passed"
    # Only the shown tail of the output changed: no fix is named rather than a wrong one.
    assert (unformatted.fix, unformatted.verification) == ("", "`mise run check 2>&1 | tail -15` passed")


def test_a_failing_line_that_introduces_what_follows_keeps_it(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Commit the script.")
    ignored = (
        "Exit code 1\nThe following paths are ignored by one of your .gitignore files:\nScripts/redact.py\n"
        "hint: Use -f if you really want to add them."
    )
    t.bash("git add Scripts/redact.py", ignored, is_error=True)
    t.bash("git add -f Scripts/redact.py", "")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert (
        record.error == "The following paths are ignored by one of your .gitignore files: Scripts/redact.py"
    )


def test_a_check_run_on_the_code_before_the_fix_is_meant_to_fail(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the race in Wait and prove the test catches it.")
    t.edit("authcode/authcode.go", "select {", "if res, ok := pending(); ok {\n\treturn res\n}\nselect {")
    failing = "--- FAIL: TestWait (0.00s)\n    authcode_test.go:346: got context canceled, want nil\nFAIL"
    t.bash(
        "git show HEAD~1:authcode/authcode.go > authcode/authcode.go && go test -run TestWait ./authcode/; "
        "git checkout authcode/authcode.go",
        failing,
    )
    t.bash("go test ./authcode/", "ok  example.com/authcode 0.2s")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_a_line_a_task_runner_tagged_keeps_the_task_it_came_from(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the checks.")
    failing = (
        "Exit code 1\n[lint:shellcheck] Finished in 149.0ms\n"
        "\x1b[38;5;14m[lint:gofmt]\x1b[0m These .go files need to be formatted:\n[lint:gofmt] internal/smarthttp.go\n"
        "[lint:gofmt] ERROR task failed"
    )
    t.bash("mise run lint", failing, is_error=True)
    t.edit("internal/smarthttp.go", "\n\n\n", "\n\n")
    t.bash("mise run lint", "[lint:gofmt] Finished in 80ms")

    [record] = extract_errors_resolved(t.read(tmp_path))

    # Which check failed is part of what a reader writes down; the line itself is read untagged.
    assert record.error == "[lint:gofmt] These .go files need to be formatted: internal/smarthttp.go"
    assert record.fix == "Edited internal/smarthttp.go"


def _fixed_run(
    tmp_path: Path, command: str, failing: str, edit: tuple[str, str, str], passing: str
) -> list[str]:
    """The error rows of a session where `command` failed with `failing` (exit 1), a file was
    edited, and the command then printed `passing`."""
    t = TranscriptBuilder()
    t.user("Make the tests pass.")
    t.bash(command, f"Exit code 1\n{failing}", is_error=True)
    t.edit(*edit)
    t.bash(command, passing)
    return [r.error for r in extract_errors_resolved(t.read(tmp_path))]


VITEST_UNHANDLED = """ ❯ src/more.test.ts (2 tests | 1 failed) 175ms
   × snapshot 14ms
     → Snapshot `snapshot 1` mismatched
   ✓ unhandled 0ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/more.test.ts > snapshot
Error: Snapshot `snapshot 1` mismatched

⎯⎯⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯⎯⎯

Vitest caught 1 unhandled error during the test run.

⎯⎯⎯⎯⎯ Uncaught Exception ⎯⎯⎯⎯⎯
Error: boom from timer: database connection lost after retry
 ❯ Timeout._onTimeout src/more.test.ts:8:50

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)
     Errors  1 error"""


def test_an_error_vitest_caught_outside_the_tests_is_said_beside_the_failed_ones(tmp_path: Path) -> None:
    edit = ("src/more.test.ts", '"a": 2', '"a": 1')
    passing = " Test Files  1 passed (1)\n      Tests  2 passed (2)"

    assert _fixed_run(tmp_path, "npx vitest run", VITEST_UNHANDLED, edit, passing) == [
        "FAIL src/more.test.ts > snapshot / Error: Snapshot `snapshot 1` mismatched",
        "Uncaught Exception / Error: boom from timer: database connection lost after retry",
    ]


UNITTEST = """FE
======================================================================
ERROR: test_raise (test_m.T.test_raise)
Raises on a missing key.
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/p/test_m.py", line 8, in test_raise
    raise KeyError("missing_key")
KeyError: 'missing_key'

======================================================================
FAIL: test_add (test_m.T.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/p/test_m.py", line 6, in test_add
    self.assertEqual(1 + 1, 3)
AssertionError: 2 != 3

----------------------------------------------------------------------
Ran 2 tests in 0.001s

FAILED (failures=1, errors=1)"""


def test_a_unittest_run_is_its_first_failed_test_with_its_exception_not_the_totals(tmp_path: Path) -> None:
    passing = "..\n" + "-" * 70 + "\nRan 2 tests in 0.001s\n\nOK"
    errors = _fixed_run(
        tmp_path, "python manage.py test", UNITTEST, ("test_m.py", "1 + 1, 3", "1 + 2, 3"), passing
    )

    assert errors == ["ERROR: test_raise (test_m.T.test_raise) / KeyError: 'missing_key'"]


TESTIFY = (
    "--- FAIL: TestAdd (0.00s)\n    gt_test.go:12: \n        \tError Trace:\t/p/gt_test.go:12\n"
    "        \tError:      \tNot equal: \n        \t            \texpected: 3\n"
    "        \t            \tactual  : -1\n        \tTest:       \tTestAdd\nFAIL\nFAIL\texample.com/gt\t0.004s"
)


def test_a_testify_failure_is_its_message_and_values_not_its_trace(tmp_path: Path) -> None:
    errors = _fixed_run(
        tmp_path, "go test ./...", TESTIFY, ("gt.go", "a - b", "a + b"), "ok  \texample.com/gt\t0.003s"
    )

    assert errors == ["--- FAIL: TestAdd (0.00s) / Error: Not equal: expected: 3 / actual : -1"]


# Real `go test` output (Go 1.2x): subtests, plain and with -v, which prints what a test logged
# under its `=== RUN` line, above the results.
GO_SUBTESTS = """--- FAIL: TestParse (0.00s)
    --- FAIL: TestParse/empty (0.00s)
        p_test.go:11: failed to parse "": strconv.Atoi: parsing "": invalid syntax
    --- FAIL: TestParse/neg (0.00s)
        p_test.go:14: Parse("-3") = -3, want 3
FAIL
FAIL	example.com/gs	0.010s
FAIL"""
GO_SUBTESTS_VERBOSE = """=== RUN   TestParse
=== RUN   TestParse/plain
=== RUN   TestParse/empty
    p_test.go:11: failed to parse "": strconv.Atoi: parsing "": invalid syntax
=== RUN   TestParse/neg
    p_test.go:14: Parse("-3") = -3, want 3
--- FAIL: TestParse (0.00s)
    --- PASS: TestParse/plain (0.00s)
    --- FAIL: TestParse/empty (0.00s)
    --- FAIL: TestParse/neg (0.00s)
=== RUN   TestPlain
    q_test.go:7: Parse(7) = 7, want 8
--- FAIL: TestPlain (0.00s)
FAIL
FAIL	example.com/gs	0.003s
FAIL"""


@pytest.mark.parametrize("failing", [GO_SUBTESTS, GO_SUBTESTS_VERBOSE])
def test_a_go_subtest_is_its_row_with_what_it_logged_and_its_parent_none(
    tmp_path: Path, failing: str
) -> None:
    errors = _fixed_run(
        tmp_path,
        "go test ./...",
        failing,
        ("p.go", "Atoi(s)", 'Atoi(s + "0")'),
        "ok  \texample.com/gs\t0.003s",
    )

    assert errors[:2] == [
        '--- FAIL: TestParse/empty (0.00s) / p_test.go:11: failed to parse "": strconv.Atoi: parsing "": invalid syntax',
        '--- FAIL: TestParse/neg (0.00s) / p_test.go:14: Parse("-3") = -3, want 3',
    ]
    assert errors[2:] == (
        ["--- FAIL: TestPlain (0.00s) / q_test.go:7: Parse(7) = 7, want 8"] if "Plain" in failing else []
    )


def test_only_the_deepest_go_subtests_that_failed_are_rows() -> None:
    tests = ["--- FAIL: A (0.00s)", "--- FAIL: A/b (0.00s)", "--- FAIL: A/b/c (0.00s)", "--- FAIL: B (0.00s)"]
    assert go_leaves(tests) == ["--- FAIL: A/b/c (0.00s)", "--- FAIL: B (0.00s)"]
    assert go_leaves(["--- FAIL: " + "a/" * 50_000]) == [
        "--- FAIL: " + "a/" * 50_000
    ]  # not walked to its end


def test_a_failure_that_says_nothing_was_found_is_that_line_not_the_runners_banner(tmp_path: Path) -> None:
    no_tests = (
        "> app@1.0.0 test\n> vitest run\n\n RUN  v3.2.7 /p\n\n"
        "include: **/*.{test,spec}.?(c|m)[jt]s?(x)\n\nNo test files found, exiting with code 1"
    )
    edit = ("vitest.config.ts", "include: ['test/**']", "include: ['src/**/*.test.ts']")
    passing = " Test Files  1 passed (1)\n      Tests  4 passed (4)"

    assert _fixed_run(tmp_path, "npm test", no_tests, edit, passing) == [
        "No test files found, exiting with code 1"
    ]


SUREFIRE = """[ERROR] Tests run: 2, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.117 s <<< FAILURE! -- in demo.CalcTest
[ERROR] demo.CalcTest.adds -- Time elapsed: 0.014 s <<< FAILURE!
org.opentest4j.AssertionFailedError: 1 + 2 ==> expected: <3> but was: <-1>
	at demo.CalcTest.adds(CalcTest.java:5)
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   CalcTest.adds:5 1 + 2 ==> expected: <3> but was: <-1>
[ERROR] Errors:
[ERROR]   CalcTest.npe:6 NullPointer Cannot invoke "String.length()" because "s" is null
[INFO]
[ERROR] Tests run: 2, Failures: 1, Errors: 1, Skipped: 0
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project demo: There are test failures."""


def test_each_test_maven_surefire_sums_up_as_failed_is_a_row(tmp_path: Path) -> None:
    edit = ("src/main/java/demo/Calc.java", "a - b", "a + b")
    passing = "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0"

    assert _fixed_run(tmp_path, "mvn -q test", SUREFIRE, edit, passing) == [
        "CalcTest.adds:5 1 + 2 ==> expected: <3> but was: <-1>",
        'CalcTest.npe:6 NullPointer Cannot invoke "String.length()" because "s" is null',
    ]


def test_sudo_wanting_a_password_is_one_error_however_it_says_so(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the workflow file's permissions.")
    t.bash("sudo cat ci.yml", "Exit code 1\nsudo: a terminal is required to read the password", is_error=True)
    t.bash("sudo -n chmod 644 ci.yml", "Exit code 1\nsudo: a password is required", is_error=True)

    assert [r.error for r in extract_errors_resolved(t.read(tmp_path))] == [
        "sudo: a terminal is required to read the password"
    ]


def test_a_failing_line_in_the_middle_of_a_long_output_is_kept_and_recorded(tmp_path: Path) -> None:
    """A CI log or a verbose run is cut to its head and tail; a `not ok` in neither was lost."""
    log = "".join(f"ok {n} step {n} works\n" for n in range(1, 700))
    log += "not ok 700 a non-zero exit should be an error\n# (in test file test/check.bats, line 186)\n"
    log += "".join(f"ok {n} step {n} works\n" for n in range(701, 1400)) + "1399 tests, 1 failure\n"
    t = TranscriptBuilder()
    t.user("Why did CI fail?")
    t.bash("gh run view 29281880678 --log-failed", log)

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error.startswith("not ok 700 a non-zero exit should be an error")


def test_a_lookup_that_never_finished_or_never_reached_its_remote_is_an_error(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Where is spec-kit mentioned, and is the branch on the remote?")
    # Codex's form of a time limit: the exit code first, then what stopped the command
    t.bash("grep -R spec-kit -n", "Exit code 124\ncommand timed out after 10019 milliseconds", is_error=True)
    t.bash("rg -n spec-kit docs", "docs/a.md:3: spec-kit")
    t.bash(
        "git ls-remote origin 2>&1 | head",  # the pipe hides git's exit status
        "ssh: Could not resolve hostname github.com: Temporary failure in name resolution\n"
        "fatal: Could not read from remote repository.\n\n"
        "Please make sure you have the correct access rights",
    )
    t.bash("git show abc123", "fatal: bad object abc123", is_error=True)  # probing: not the work failing
    t.bash("ls missing", "ls: cannot access 'missing': No such file or directory", is_error=True)
    t.bash(
        "tail -f server.log", "Command timed out after 2m 0.0s\nlistening on :8080", is_error=True
    )  # meant to run on

    hung, unreached = extract_errors_resolved(t.read(tmp_path))

    assert hung.error == "grep: command timed out after 10019 milliseconds"
    assert hung.fix == ""  # another program found it: what took its place is not for a rule to say
    assert unreached.error.startswith("ssh: Could not resolve hostname github.com")
    assert unreached.fix == ""


def test_a_credential_in_an_unreachable_remote_is_not_kept(tmp_path: Path) -> None:
    import asyncio

    from graphiti_session_tracking.summary import summarize_session

    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    t = TranscriptBuilder()
    t.user("Is the branch pushed?")
    t.bash(
        f"git ls-remote https://alice:{token}@github.com/a/b.git 2>&1 | head",
        f"fatal: unable to access 'https://alice:{token}@github.com/a/b.git/': Could not resolve host: github.com",
    )

    summary = asyncio.run(summarize_session(t.read(tmp_path)))

    [record] = summary.errors_resolved
    assert record.error.startswith("fatal: unable to access 'https://alice:[REDACTED")
    assert token not in summary.model_dump_json()
