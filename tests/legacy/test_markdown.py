"""The old markdown summary: realistic records (fixtures), hand edits, and fuzzing."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from legacy_graph import LEGACY

from graphiti_session_tracking.legacy import LegacyFormatError, parse_markdown, parse_token_count


def test_record_with_front_matter_reads_every_field() -> None:
    record = parse_markdown((LEGACY / "s004-fix-jwt-expiry.md").read_text(), "s004")
    old = record.summary
    assert old.objective == "Fix JWT expiry handling in the auth middleware"
    assert old.completed_tasks == ["Found the unit mismatch in JWT_EXPIRY", "Added a regression test"]
    assert old.blocked_items == []  # "None"
    assert old.next_steps == ["Document the time units"]
    assert old.key_decisions == ["Use seconds everywhere for expiry values"]
    assert old.files_modified == ["/home/user/my-project/src/auth/jwt.py", "tests/test_jwt.py"]
    assert old.documentation_referenced == ["docs/auth.md"]
    assert old.mcp_tools_used == ["mcp__serena__find_symbol"]
    assert old.token_count == 48210
    assert old.duration_estimate == "1-2 hours"
    assert record.front_matter["session_file"] == "3f1c2a9b-5d6e-4f70-8a1b-2c3d4e5f6a7b.jsonl"
    assert record.front_matter["message_count"] == 47
    assert record.front_matter["project_path"] == "/home/user/my-project"
    assert record.fields["status"] == "ACTIVE"
    assert record.fields["created"] == "2025-12-08 14:02"
    assert record.fields["handoff file"] == ".claude/handoff/s004-fix-jwt.md"  # backticks dropped
    assert (record.sequence, record.title) == (4, "Fix JWT expiry handling")
    assert record.problems == [] and record.extra_sections == {}


def test_crlf_record_without_front_matter_reads_like_lf() -> None:
    raw = (LEGACY / "s001-crlf.md").read_bytes()
    assert b"\r\n" in raw
    crlf = parse_markdown(raw.decode("utf-8"), "s001")
    lf = parse_markdown(raw.decode("utf-8").replace("\r\n", "\n"), "s001")
    assert crlf.summary == lf.summary and crlf.fields == lf.fields
    assert crlf.front_matter == {}
    assert crlf.summary.blocked_items == ["Self-hosted runner has no Docker"]
    assert crlf.summary.files_modified == [".github/workflows/ci.yml"]
    assert crlf.summary.key_decisions == []  # the section is absent when empty
    assert crlf.summary.token_count == 9876
    assert all("\r" not in item for item in crlf.summary.completed_tasks)
    # A lone CR (old Mac line ends) is a line end too.
    assert parse_markdown(raw.decode("utf-8").replace("\r\n", "\r"), "s001").summary == lf.summary


def test_hand_edited_record() -> None:
    record = parse_markdown((LEGACY / "s002-hand-edited.md").read_text(), "s002.md")
    old = record.summary
    # `**Name:**`, a wrapped objective, a heading with a colon, *, [x], numbered items, sub-items.
    assert (
        old.objective == "Split the billing module into invoices and payments, keeping the public API stable"
    )
    assert old.completed_tasks == [
        "Moved invoice code to `billing/invoices.py`",
        "Moved payment code to billing/payments.py and updated every import",
        "Kept `billing/__init__.py` re-exporting the old names; checked with the API snapshot test",
    ]
    assert old.blocked_items == ["Waiting for the payments team to confirm the webhook format"]
    # "## Decisions" is the key decisions; a prose line after a blank line is an item of its own.
    assert old.key_decisions == [
        "Keep the old import paths for one release",
        "Deprecation warnings instead of hard breaks",
    ]
    assert old.files_modified == ["billing/invoices.py", "billing/payments.py"]  # inline list
    assert old.mcp_tools_used == ["mcp__serena__find_referencing_symbols"]  # backticks dropped
    assert old.next_steps == []
    assert old.token_count == 12000  # "~12k tokens"
    assert old.duration_estimate == "about 45 minutes"
    assert record.fields["status"] == "COMPLETED"
    assert record.extra_sections == {"Notes": "The invoice PDF renderer still lives in billing/legacy.py."}
    assert record.sequence == 2 and record.title == "Refactor the billing module"


def test_non_ascii_record() -> None:
    record = parse_markdown((LEGACY / "s005-non-ascii.md").read_text(encoding="utf-8"), "s005")
    old = record.summary
    assert old.objective.startswith("Übersetzung der Fehlermeldungen") and old.objective.endswith("✅")
    assert "日本語の翻訳を locales/ja.json に追加" in old.completed_tasks
    assert old.next_steps == ["Prüfen, ob die Pluralformen stimmen 🤔"]
    assert old.documentation_referenced == ["docs/i18n.md", "https://docs.python.org/3/library/gettext.html"]
    assert old.token_count == 1234567
    assert old.duration_estimate == "30–45 min"
    assert record.front_matter["hostname"] == "büro-laptop"


def test_record_with_only_a_title() -> None:
    record = parse_markdown((LEGACY / "s003-minimal.md").read_text(), "s003")
    assert record.summary.objective == "Investigate flaky CI"
    assert record.summary.completed_tasks == record.summary.next_steps == []
    assert record.summary.token_count is None and record.summary.duration_estimate is None


def test_bom_objective_section_and_unreadable_token_usage() -> None:
    text = "\ufeff## Objective\n\nMigrate the\n  logging setup\n\n**Token Usage**: lots\n**Tokens**: n/a\n"
    record = parse_markdown(text, "ep-1")
    assert record.summary.objective == "Migrate the logging setup"
    assert record.summary.token_count is None
    assert record.problems == ["ep-1:6: unreadable token usage 'lots', kept as text"]


def test_front_matter_without_closing_is_body() -> None:
    text = "---\n**Objective**: Starts with a rule\n\n## Completed\n- one\n"
    assert parse_markdown(text, "x").summary.completed_tasks == ["one"]


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("bad-front-matter.md", 5, "invalid YAML front matter"),
        ("not-a-summary.md", 1, "not a legacy session summary"),
    ],
)
def test_unparseable_records_name_source_and_line(name: str, line: int, reason: str) -> None:
    with pytest.raises(LegacyFormatError) as caught:
        parse_markdown((LEGACY / name).read_text(), f"episode {name}")
    assert str(caught.value).startswith(f"episode {name}:{line}: {reason}")
    assert caught.value.line == line


def test_empty_and_binary_records_are_rejected() -> None:
    with pytest.raises(LegacyFormatError, match=r"^e:1: empty record"):
        parse_markdown(" \r\n\n", "e")
    with pytest.raises(LegacyFormatError, match=r"^e:2: NUL"):
        parse_markdown("**Objective**: x\n\x00\n", "e")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48,210", 48210),
        ("48.210", 48210),
        ("48 210", 48210),
        ("48\u202f210 tokens", 48210),
        ("1,234,567", 1234567),
        ("48210", 48210),
        ("`48210`", 48210),
        ("~12k", 12000),
        ("1.5M", 1500000),
        ("1,5k", None),  # ambiguous: kept as text
        ("lots", None),
        ("", None),
    ],
)
def test_token_counts(text: str, expected: int | None) -> None:
    assert parse_token_count(text) == expected


_LINE = re.compile(r"^(?P<source>src/x\.md):(?P<line>\d+): \S")

_markdownish = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "---",
                "# Session 007: t",
                "## Completed",
                "## Blocked",
                "None",
                "## Context",
                "**Files Modified/Created**:",
                "**Objective**: o",
                "**Token Usage**: 1,2,3",
                "graphiti_session_metadata:",
                "  session_file: [",
                "  - x",
                "- [x] y",
                "\r",
                "\x00",
                "...",
            ]
        ),
        st.text(max_size=40),
    ),
    max_size=30,
).map("\n".join)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.one_of(st.text(max_size=400), _markdownish))
def test_fuzz_parser_raises_only_its_error_naming_source_and_line(text: str) -> None:
    try:
        record = parse_markdown(text, "src/x.md")
    except LegacyFormatError as exc:
        match = _LINE.match(str(exc))
        assert match is not None, str(exc)
        assert 1 <= int(match.group("line")) <= text.count("\n") + text.count("\r") + 1
        return
    assert record.summary.objective.strip()
    for problem in record.problems:
        assert _LINE.match(problem), problem


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_parser_on_decoded_bytes(data: bytes) -> None:
    try:
        parse_markdown(data.decode("utf-8", errors="replace"), "src/x.md")
    except LegacyFormatError as exc:
        assert _LINE.match(str(exc)), str(exc)
