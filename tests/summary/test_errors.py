"""errors_resolved from tool calls: failure, the fix in between, the rerun that passed."""

from __future__ import annotations

from pathlib import Path

from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary.errors import error_line, extract_errors_resolved
from graphiti_session_tracking.summary.model import ErrorResolution
from graphiti_session_tracking.transcripts import read_transcript

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
    assert record.verification == "`cargo build 2>&1` succeeded"


def test_unresolved_failure_gives_no_record(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run the tests.")
    t.bash("pytest", "Exit code 1\nFAILED tests/test_a.py::test_one - assert 1 == 2\n1 failed", is_error=True)
    t.edit("src/a.py", "return 1", "return 2")
    t.bash("cargo test", "test result: ok. 3 passed; 0 failed")  # another kind: does not resolve it

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_repeated_failures_collapse_and_keep_the_first_error(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Fix the test.")
    t.bash("pytest tests/test_a.py", "Exit code 1\nE   AssertionError: first\n1 failed", is_error=True)
    t.edit("src/a.py", "x = 1", "x = 2")
    t.bash("pytest tests/test_a.py -x", "Exit code 1\nE   AssertionError: second\n1 failed", is_error=True)
    t.edit("src/b.py", "y = 1", "y = 2")
    t.bash("pytest", "3 passed in 0.1s")

    [record] = extract_errors_resolved(t.read(tmp_path))

    assert record.error == "AssertionError: first"
    assert record.fix == "Edited src/a.py, src/b.py"
    assert record.verification == "`pytest` passed (3 passed)"


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


def test_different_scripts_are_different_kinds(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Run both.")
    t.bash("python a.py", "Exit code 1\nValueError: bad", is_error=True)
    t.bash("python b.py", "fine")

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_sidechain_calls_are_left_out(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Check.")
    t.bash("pytest", "Exit code 1\n1 failed", is_error=True)
    t.bash("pytest", "2 passed")
    for record in t.records:
        record["isSidechain"] = True

    assert extract_errors_resolved(t.read(tmp_path)) == []


def test_error_line_picks_the_telling_line() -> None:
    assert error_line("Exit code 1\nsome noise\nAssertionError: expected 3, got 4") == (
        "AssertionError: expected 3, got 4"
    )
    assert error_line("Exit code 1\nFAILED tests/test_x.py::test_y - assert 1 == 2") == (
        "FAILED tests/test_x.py::test_y - assert 1 == 2"
    )
    assert error_line("<tool_use_error>String to replace not found in file.</tool_use_error>") == (
        "String to replace not found in file."
    )
    assert error_line("Exit code 128\nfatal: not a git repository") == "fatal: not a git repository"
    assert error_line("Exit code 3\n\n  plain message  ") == "plain message"
    long = error_line("RuntimeError: " + "x" * 500)
    assert len(long) == 200 and long.endswith("…")


def test_real_transcript_failed_commit_was_never_resolved() -> None:
    """coverage-test-fix ends with a failing `git commit` (nothing to commit): not a resolution."""
    session = read_transcript(TRANSCRIPTS / "coverage-test-fix.jsonl")
    failing = [c for c in session.tool_calls if c.result is not None and c.result.is_error]
    assert len(failing) == 1 and "nothing to commit" in failing[0].result.text  # type: ignore[union-attr]

    assert extract_errors_resolved(session) == []


def test_real_transcripts_without_failures_give_nothing() -> None:
    for name in ("python-to-rust-port.jsonl", "hello-world-script.jsonl"):
        assert extract_errors_resolved(read_transcript(TRANSCRIPTS / name)) == []
