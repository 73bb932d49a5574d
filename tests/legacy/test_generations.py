"""Both generations of the old module's summaries (records its own code produced, see
tests/fixtures/legacy/gen1|gen2/PROVENANCE.md): every field lands in its place, in markdown, in
JSON and from the graph, and the old MCP server's indexer episodes are reported apart."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from conftest import TRANSCRIPTS
from legacy.legacy_graph import add_legacy_episode

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.queries import run_query
from graphiti_session_tracking.legacy.convert import convert_record
from graphiti_session_tracking.legacy.markdown import parse_markdown
from graphiti_session_tracking.legacy.migrate import load_legacy_file, migrate_legacy
from graphiti_session_tracking.summary.model import ConfigChange, DecisionRecord, ErrorResolution

GEN1 = Path(__file__).resolve().parents[1] / "fixtures" / "legacy" / "gen1"
GEN2 = Path(__file__).resolve().parents[1] / "fixtures" / "legacy" / "gen2"
DECISION = DecisionRecord(
    decision="Keep HS256 for now",
    rationale="Key rotation needs an ops change first",
    alternatives=["RS256", "EdDSA"],
)
ERROR = ErrorResolution(
    error="401 Unauthorized after one minute",
    root_cause="JWT_EXPIRY read as minutes",
    fix="Parse it as seconds",
    verification="pytest tests/test_jwt.py passed",
)
CHANGE = ConfigChange(
    file=".env",
    setting="JWT_EXPIRY",
    old_value="60",
    new_value="3600",
    reason="sessions expired after a minute",
)


def test_markdown_of_the_second_generation_lands_field_by_field() -> None:
    path = GEN2 / "s007-gen2.md"
    summary, _ = convert_record(parse_markdown(path.read_text(), str(path)))
    assert summary.key_decisions == [DECISION]
    assert summary.errors_resolved == [ERROR]
    assert summary.config_changes == [CHANGE]
    assert summary.test_results is not None
    assert (summary.test_results.framework, summary.test_results.passed, summary.test_results.total) == (
        "pytest",
        42,
        42,
    )
    assert summary.test_results.coverage_pct == 87.5
    # The stored vector, not one recomputed from keywords.
    vector = summary.activity_vector
    assert (vector.fixing, vector.testing, vector.refactoring, vector.configuring) == (0.8, 0.5, 0.2, 0.0)
    # What the old code got wrong is unknown: 0 counts, the slug session file, Created as a start.
    assert summary.duration_minutes == 45 and summary.message_count is None and summary.started_at is None
    assert not summary.session_id.startswith("session-")


def test_json_of_the_second_generation_lands_field_by_field() -> None:
    records, errors = load_legacy_file(GEN2 / "s007-gen2.json")
    assert errors == []
    summary, _ = convert_record(records[0])
    assert summary.key_decisions == [DECISION]
    assert summary.errors_resolved == [ERROR]
    assert summary.config_changes == [CHANGE]
    assert summary.test_results is not None and summary.test_results.passed == 42
    assert (summary.activity_vector.fixing, summary.activity_vector.testing) == (
        0.8,
        0.5,
    )  # its activity_profile


async def test_from_the_graph_with_an_indexer_episode_beside_it(backend: Backend, tmp_path: Path) -> None:
    group = "a1b2c3d4e5f6a7b8"
    when = datetime(2025, 12, 20, 16, 40, tzinfo=UTC)
    await add_legacy_episode(
        backend,
        group,
        name="Session 007: Fix JWT expiry handling",
        content=(GEN2 / "s007-gen2.md").read_text(),
        valid_at=when,
        uuid="7e57a000-0000-4000-8000-000000000007",
        description="[a1b2c3d4] Session handoff summary with 2 completed tasks, 0 blocked items, and 3 files modified",
    )
    await add_legacy_episode(
        backend,
        group,
        name="Session 005: 3f1c9a2b",
        content=(TRANSCRIPTS / "hello-world-script.jsonl").read_text()[:2000],
        valid_at=when,
        uuid="7e57a000-0000-4000-8000-000000000005",
        description="Filtered Claude Code session 3f1c9a2b (42 messages)",
    )
    report = await migrate_legacy(backend, from_graph=True)

    assert report.failed == [] and report.ingested == 1
    [written] = [s for s in report.sessions if s.get("status") == "created"]
    assert "front_matter_hostname" in written["legacy_extra"]  # kept on the Session, and said
    stored = await backend.read(
        group,
        "MATCH (s:Entity:Session) WHERE s.group_id = $group_id RETURN s.legacy_extra AS extra",
        {"group_id": group},
    )
    assert json.loads(stored[0]["extra"])["front_matter_hostname"] == "dev-laptop"
    [indexed] = report.indexer_episodes
    assert (indexed["session"], indexed["episode"]) == ("3f1c9a2b", "7e57a000-0000-4000-8000-000000000005")
    errors = await run_query(backend, "errors", group_id=group)
    assert [(r["error"], r["fix"]) for r in errors] == [(ERROR.error, ERROR.fix)]
    changes = await run_query(backend, "config-changes", group_id=group)
    assert [(r["setting"], r["old_value"], r["new_value"]) for r in changes] == [("JWT_EXPIRY", "60", "3600")]
    decisions = await run_query(backend, "decisions", group_id=group)
    assert [(r["decision"], r["rationale"], r["alternatives"]) for r in decisions] == [
        (DECISION.decision, DECISION.rationale, DECISION.alternatives)
    ]
    tests = await run_query(backend, "tests", group_id=group)
    assert [(t["framework"], t["passed"], t["total"]) for t in tests] == [("pytest", 42, 42)]
    again = await migrate_legacy(backend, from_graph=True)
    assert (again.ingested, again.failed) == (0, [])  # a re-run changes nothing

    # The same record exported to JSON is the same session, in the graph record's group.
    both = await migrate_legacy(backend, [GEN2 / "s007-gen2.json"], from_graph=True)
    assert both.failed == [] and both.ingested == 1  # the session now records where it was found
    same = [s for s in both.sessions if s.get("status") == "same record"]
    assert [s["source"] for s in same] == [f"{GEN2 / 's007-gen2.json'}:1"]
    sessions = await run_query(backend, "sessions", group_id=group)
    assert len(sessions) == 1


def test_first_generation_markdown_and_json_give_the_same_session() -> None:
    path = GEN1 / "s003-gen1.md"
    from_markdown, _ = convert_record(parse_markdown(path.read_text(), str(path)))
    [record], errors = load_legacy_file(GEN1 / "s003-gen1.json")
    from_json, _ = convert_record(record)
    assert errors == [] and from_markdown.session_id == from_json.session_id  # one record, one session
    for summary in (from_markdown, from_json):
        assert summary.key_decisions == [
            DecisionRecord(decision="Keep the limiter in memory until Redis is available")
        ]
        assert summary.next_steps == [
            "Blocked: Waiting for the Redis credentials from ops",
            "Move the bucket to Redis",
        ]
        assert summary.outcome == "blocked" and summary.duration_minutes == 120
        assert summary.files_modified == ["src/auth/limiter.py", "tests/test_limiter.py"]
        assert summary.documentation_referenced == ["docs/security.md"]
    assert from_markdown.started_at is None and from_markdown.ended_at == datetime(
        2025, 11, 20, 9, 30, tzinfo=UTC
    )


def test_nulls_the_old_module_wrote_are_the_fields_defaults(tmp_path: Path) -> None:
    """The old module writes null for what it had nothing for (a decision without alternatives, an
    error without a root cause): such a record is whole, not rejected."""
    record = json.loads((GEN2 / "s007-gen2.json").read_text())
    record["key_decisions"] = [{"decision": "Keep HS256 for now", "rationale": None, "alternatives": None}]
    record["errors_resolved"] = [
        {"error": "401 Unauthorized after one minute", "root_cause": None, "fix": None}
    ]
    path = tmp_path / "nulls.json"
    path.write_text(json.dumps(record))
    records, errors = load_legacy_file(path)
    assert errors == []
    summary, _ = convert_record(records[0])
    assert summary.key_decisions == [DecisionRecord(decision="Keep HS256 for now")]
    assert summary.errors_resolved == [ErrorResolution(error="401 Unauthorized after one minute")]
    record["key_decisions"] = [{"decision": None}]  # a required field still must be there
    path.write_text(json.dumps(record))
    assert load_legacy_file(path)[1] != []
