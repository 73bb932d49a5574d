"""The model's rows laid over the offline ones: one row per distinct error or choice, none lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary.errors import failed_in_form_only
from graphiti_session_tracking.summary.llm_merge import (
    merge_config,
    merge_decisions,
    merge_errors,
    same_choice,
    same_error,
)
from graphiti_session_tracking.summary.model import ConfigChange, DecisionRecord, ErrorResolution


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (  # two failing tests of one class, one exception type
            "FAILED tests/test_redaction.py::TestKeys::test_slack_token - AssertionError: assert x",
            "FAILED tests/test_redaction.py::TestKeys::test_github_token - AssertionError: assert y",
        ),
        (
            "src/api/route.ts(20,3): error TS2322: Type 'A' is not assignable",
            "src/hooks/team.ts(99,5): error TS2322: Type 'B'",
        ),
        (
            "src/a.test.ts:35:33 - error TS2345: Argument of type 'Request'",
            "src/a.test.ts:29:39 - error TS2345: Argument of type 'null'",
        ),
        (
            "error: could not apply a82e07c... Address review feedback",
            "error: could not apply 27a33e9... Harden OAuth",
        ),
        (
            "/tmp/run.sh: line 28: /tmp/common.sh: No such file or directory",
            "/usr/bin/env: 'bash\\r': No such file or directory",
        ),
    ],
)
def test_rows_that_name_different_things_are_different_errors(a: str, b: str) -> None:
    assert not same_error(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "error TS2345: Argument of type 'Request' is not assignable to parameter of type 'NextRequest'",
            "src/a.test.ts:35:33 - error TS2345: Argument of type 'Request' is not assignable to parameter of type 'NextRequest'.",
        ),
        (
            "ModuleNotFoundError: No module named 'foo'",
            "Running pytest failed: ModuleNotFoundError: No module named 'foo'",
        ),
        ("npm ERR! code ERESOLVE", "npm ERR! code ERESOLVE unable to resolve dependency tree"),
    ],
)
def test_the_same_error_in_other_words_or_quoted_more_fully_is_one(a: str, b: str) -> None:
    assert same_error(a, b)


def test_every_distinct_error_the_model_lists_is_kept_and_a_twin_keeps_the_printed_line() -> None:
    offline = [ErrorResolution(error="AssertionError: assert 'x' in 'slack_token=[REDACTED]'")]
    first = [
        ErrorResolution(
            error="FAILED tests/test_r.py::test_slack_token - AssertionError: assert 'x' in 'slack_token=[REDACTED]'",
            fix="kept the prefix",
        ),
        ErrorResolution(
            error="FAILED tests/test_r.py::test_github_token - AssertionError: assert 'y' in 'GITHUB_token=[REDACTED]'"
        ),
    ]
    second = [
        ErrorResolution(
            error="FAILED tests/test_r.py::test_github_token - AssertionError: assert 'y' in 'GITHUB_token=[REDACTED]'"
        ),
    ]
    merged = merge_errors(offline, [first, second])
    assert [e.error.split(" - ")[0] for e in merged] == [
        "FAILED tests/test_r.py::test_slack_token",  # the model quoted more of the same line
        "FAILED tests/test_r.py::test_github_token",  # said twice (two parts of a session): once
    ]
    assert merged[0].fix == "kept the prefix"


def test_rows_of_one_answer_stay_apart_as_the_model_wrote_them() -> None:
    """Alike in words, two commands not found: the model listed them as two, and two they stay."""
    rows = [
        ErrorResolution(error="bash: line 1: python: command not found"),
        ErrorResolution(error="/p/.specify/scripts/bash/common.sh: line 3: $'\\r': command not found"),
    ]
    assert merge_errors([], [rows]) == rows
    assert merge_errors([], [rows[:1], rows[:1]]) == rows[:1]  # said again in a later part: once


def test_a_model_row_quoting_only_a_hiccup_is_left_out(tmp_path: Path) -> None:
    """The offline rules' judgement of a call holds for the model's rows too: `rm` of a missing
    file and `nothing to commit` are no errors; a failure they count stays, even where its words
    are also in a hiccup's output; a failing lookup is no hiccup (a reader may count it)."""
    t = TranscriptBuilder()
    t.user("Tidy up and ship.")
    t.bash("rm serve-charts.js", "Exit code 1\nrm: serve-charts.js: No such file or directory", is_error=True)
    t.bash("git commit -am wip", "Exit code 1\nnothing to commit, working tree clean", is_error=True)
    t.bash("npm test", "Exit code 1\nError: Cannot find module './serve-charts.js'", is_error=True)
    t.bash("gh pr view 12", 'Exit code 1\nno pull requests found for branch "wip"', is_error=True)
    session = t.read(tmp_path)
    calls = [call for message in session.messages for call in message.tool_calls]
    rows = [
        ErrorResolution(error="rm: serve-charts.js: No such file or directory"),
        ErrorResolution(error="git commit failed: nothing to commit, working tree clean"),
        ErrorResolution(error="Error: Cannot find module './serve-charts.js'"),
        ErrorResolution(error='gh pr view 12 -> no pull requests found for branch "wip"'),
    ]
    kept = merge_errors([], [rows], failed_in_form_only(calls))
    assert [e.error for e in kept] == [rows[2].error, rows[3].error]
    assert merge_errors([], [rows]) == rows  # without the session's calls, nothing is judged


def test_a_shared_topic_is_not_the_same_choice() -> None:
    assert not same_choice(
        "No CHANGELOG entry for the `Wait` fix.", "Fix the `Wait` race by re-checking resultCh"
    )
    assert same_choice("Use the streaming API", "Use the streaming API for the importer, not the batch API")
    assert same_choice(
        "Use a switch case instead of linked ifelse", "Use a switch case instead of a linked if/else chain"
    )
    assert same_choice(
        "Publish the formula to the homebrew-tap repository",
        "Publish the Homebrew formula to the homebrew-tap repository",
    )


def test_a_users_choice_stays_word_for_word_with_what_the_model_read_it_to_mean() -> None:
    asked = DecisionRecord(decision="Auth approach: GitHub App + Actions workflow", confidence=0.9, by="user")
    model = [
        DecisionRecord(
            decision="Use a GitHub App and an Actions workflow to push to the tap, via actions/create-github-app-token",
            rationale="org-owned, short-lived tokens",
        ),
        DecisionRecord(
            decision="No CHANGELOG entry for the release workflow change", rationale="internal only"
        ),
    ]
    merged = merge_decisions([asked], model, session_words=set())
    assert len(merged) == 2
    first = merged[0]
    assert first.decision == f"{asked.decision} — {model[0].decision}"
    assert first.by == "user" and first.rationale == "org-owned, short-lived tokens"
    assert merged[1].decision.startswith("No CHANGELOG entry") and merged[1].confidence is not None


def test_the_models_retelling_of_a_users_answer_joins_it() -> None:
    asked = DecisionRecord(decision="Install method: Pre-built binaries", confidence=0.9, by="user")
    told = DecisionRecord(decision="Install pre-built binaries from the release archives", rationale="fast")
    (merged,) = merge_decisions([asked], [told], session_words=set())
    assert merged.decision.startswith("Install method: Pre-built binaries — ") and merged.rationale == "fast"
    other = DecisionRecord(decision="Install the docs site with pnpm", rationale="")
    assert len(merge_decisions([], [told, other], session_words=set())) == 2  # two model rows stay two


def test_the_models_config_rows_only_for_a_settings_file_the_offline_rows_could_not_read() -> None:
    """An ignore file the offline rows say nothing of was created or rewritten whole: the model's
    retelling of its list is left out too, while an unread settings file takes the model's row."""
    offline = [ConfigChange(file="pyproject.toml", setting="tool.ruff.line-length", new_value="100")]
    model = [
        ConfigChange(file="pyproject.toml", setting="tool.ruff", new_value="line-length=100"),
        ConfigChange(file=".gitignore", setting="patterns", new_value="node_modules/, dist/"),
        ConfigChange(file=".env", setting="PORT", new_value="8080"),
        ConfigChange(file="made/up.toml", setting="x", new_value="1"),
    ]
    edited = {"/w/pyproject.toml", "/w/.gitignore", "/w/.env"}
    assert [(c.file, c.setting) for c in merge_config(offline, model, edited)] == [
        ("pyproject.toml", "tool.ruff.line-length"),
        (".env", "PORT"),
    ]
