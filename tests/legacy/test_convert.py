"""Legacy record -> EnhancedSessionSummary (spec 10.1) and the mapping of what is new in it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from legacy_graph import LEGACY

from graphiti_session_tracking.graph.mapping import map_summary
from graphiti_session_tracking.graph.schema import Label, Relation, entity_uuid
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.legacy import (
    LegacyRecord,
    SessionSummarySchema,
    convert_record,
    legacy_session_id,
    parse_duration_minutes,
    parse_markdown,
    sanitize_group_id,
)
from graphiti_session_tracking.summary import EnhancedSessionSummary


def record(name: str, **extra: object) -> LegacyRecord:
    parsed = parse_markdown((LEGACY / name).read_text(encoding="utf-8"), f"episode {name}")
    for key, value in extra.items():
        setattr(parsed, key, value)
    return parsed


def test_record_with_front_matter_converts_per_spec() -> None:
    summary, problems = convert_record(record("s004-fix-jwt-expiry.md"))
    assert problems == []
    assert summary.session_id == "3f1c2a9b-5d6e-4f70-8a1b-2c3d4e5f6a7b"  # from session_file
    assert summary.session_file == "3f1c2a9b-5d6e-4f70-8a1b-2c3d4e5f6a7b.jsonl"
    assert summary.project_path == "/home/user/my-project"
    assert summary.objective == "Fix JWT expiry handling in the auth middleware"
    assert summary.outcome == "in_progress"  # ACTIVE, next steps pending
    assert [(d.decision, d.rationale) for d in summary.key_decisions or []] == [
        ("Use seconds everywhere for expiry values", "")
    ]
    assert summary.files_modified == ["src/auth/jwt.py", "tests/test_jwt.py"]  # relative to the project
    assert summary.documentation_referenced == ["docs/auth.md"]
    assert summary.mcp_tools_used == ["mcp__serena__find_symbol"]
    assert summary.message_count == 47
    assert summary.duration_minutes == 120  # the markdown's own duration wins over the front matter's
    assert summary.started_at is None  # **Created** is when the summary was written, not the start
    assert summary.ended_at == datetime(2025, 12, 8, 15, 30, tzinfo=UTC)  # indexed_at
    meta = summary.metadata or {}
    assert meta["token_count"] == 48210
    assert meta["duration_estimate"] == "1-2 hours"
    assert meta["legacy_status"] == "ACTIVE"
    assert meta["legacy_handoff_file"] == ".claude/handoff/s004-fix-jwt.md"
    assert meta["front_matter_hostname"] == "DESKTOP-ABC123"
    assert summary.activity_vector.fixing > 0 and summary.activity_vector.testing > 0
    # The summary survives its own JSON round trip (what the episode stores).
    assert EnhancedSessionSummary.model_validate_json(summary.model_dump_json()) == summary


def test_blocked_items_become_next_steps_and_a_blocked_outcome() -> None:
    summary, _ = convert_record(record("s001-crlf.md"))
    assert summary.next_steps == [
        "Blocked: Self-hosted runner has no Docker",
        "Ask ops for a Docker-enabled runner",
    ]
    assert summary.outcome == "blocked"
    assert summary.duration_minutes == 120
    assert (summary.metadata or {})["token_count"] == 9876


def test_completed_status_wins_over_blocked_items() -> None:
    summary, _ = convert_record(record("s002-hand-edited.md"))
    assert summary.outcome == "completed"
    assert summary.next_steps == ["Blocked: Waiting for the payments team to confirm the webhook format"]
    assert summary.started_at is None
    assert summary.duration_minutes == 45
    assert (summary.metadata or {})["legacy_section_notes"].startswith("The invoice PDF renderer")


def test_episode_time_is_the_end_and_the_start_is_unknown() -> None:
    """**Created** and the episode's time are when the summary was written: the end, not the start."""
    valid_at = datetime(2025, 12, 8, 12, 0, tzinfo=UTC)
    summary, _ = convert_record(record("s004-fix-jwt-expiry.md", valid_at=valid_at))
    assert summary.ended_at == valid_at and summary.started_at is None
    unstored, _ = convert_record(record("s004-fix-jwt-expiry.md"))
    assert unstored.ended_at == datetime(2025, 12, 8, 15, 30, tzinfo=UTC)  # the front matter's indexed_at
    assert unstored.started_at is None


def test_session_id_is_the_records_content_wherever_it_was_found() -> None:
    """One record is one session, found in two episodes or two files; another record is another."""
    one = record("s001-crlf.md", episode_uuid="2b1d6c1e-0000-4000-8000-000000000001")
    copy = record("s001-crlf.md", episode_uuid="2b1d6c1e-0000-4000-8000-000000000002")
    assert legacy_session_id(one) == legacy_session_id(copy)
    from_file = LegacyRecord(source="/data/a.jsonl:3", summary=one.summary)
    assert legacy_session_id(from_file) == legacy_session_id(one)
    other = record("s003-minimal.md", episode_uuid="2b1d6c1e-0000-4000-8000-000000000001")
    assert legacy_session_id(other) != legacy_session_id(one)
    # Same input, same summary: the content hash, hence idempotence, depends on it.
    assert convert_record(one)[0] == convert_record(record("s001-crlf.md", episode_uuid=one.episode_uuid))[0]


def test_json_record_defaults_and_blank_items() -> None:
    old = SessionSummarySchema.model_validate(
        {
            "objective": "  ",
            "completed_tasks": ["", "Did it", "Did it"],
            "next_steps": [],
            "key_decisions": [" "],
        }
    )
    assert old.blocked_items == old.files_modified == old.documentation_referenced == old.mcp_tools_used == []
    assert old.token_count is None and old.duration_estimate is None
    summary, _ = convert_record(LegacyRecord(source="f.json:1", summary=old))
    assert summary.objective == "(objective not recorded)"
    assert summary.completed_tasks == ["Did it"]
    assert summary.key_decisions is None and summary.outcome == "completed"
    assert summary.started_at is None and summary.ended_at is None


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("2 hours", 120),
        ("1-2 hours", 120),  # a range takes its upper bound
        ("1 to 2 hours", 120),
        ("30–45 min", 45),
        ("30 min - 1 hour", 60),
        ("45 minutes", 45),
        ("~30 min", 30),
        ("about 45 minutes", 45),
        ("1.5 hours", 90),
        ("1,5 h", 90),
        ("2h 15m", 135),
        ("1 hr 15 mins", 75),
        ("1:30", 90),
        ("half an hour", 30),
        ("an hour", 60),
        ("3 days", 4320),
        ("20 seconds", 1),
        ("a few minutes", None),
        ("unknown", None),
        ("2 hotfixes", None),
        ("", None),
    ],
)
def test_duration_estimates(text: str, minutes: int | None) -> None:
    assert parse_duration_minutes(text) == minutes


def test_group_ids_are_sanitized_deterministically() -> None:
    assert sanitize_group_id("a1b2c3d4e5f6a7b8") == "a1b2c3d4e5f6a7b8"  # valid ids stay
    hosted = sanitize_group_id("DESKTOP-ABC123__global")
    assert hosted.startswith("DESKTOP_ABC123__global_") and len(hosted) == len("DESKTOP_ABC123__global_") + 8
    assert hosted == sanitize_group_id("DESKTOP-ABC123__global")
    assert sanitize_group_id("my-host__global") != sanitize_group_id("my.host__global")
    assert sanitize_group_id("") == sanitize_group_id(None) == "legacy"
    for raw in ("x" * 300, "büro-laptop__global", "a b/c", "-"):
        assert GroupId(sanitize_group_id(raw))


def test_documentation_becomes_referenced_doc_links() -> None:
    summary, _ = convert_record(record("s005-non-ascii.md"))
    graph = map_summary(summary, "g")
    session = entity_uuid("g", Label.SESSION, summary.session_id)
    referenced = {e.target_node_uuid: e.fact for e in graph.edges if e.name == Relation.REFERENCED_DOC.value}
    docs = ["docs/i18n.md", "https://docs.python.org/3/library/gettext.html"]
    assert set(referenced) == {entity_uuid("g", Label.FILE, d) for d in docs}
    assert all(e.source_node_uuid == session for e in graph.edges if e.name == "REFERENCED_DOC")
    modified = {e.target_node_uuid for e in graph.edges if e.name == Relation.MODIFIED_FILE.value}
    assert modified.isdisjoint(referenced)  # consulted is not modified
    assert {n.attributes["path"] for n in graph.entities if n.labels == ["File"]} >= set(docs)
    assert "## Documentation Referenced" in summary.to_markdown()
