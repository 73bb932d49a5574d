"""Mapping a summary to graph records: every record type, its relations and readable facts."""

from __future__ import annotations

from datetime import UTC, datetime

from graphiti_session_tracking.graph.mapping import map_summary
from graphiti_session_tracking.graph.schema import Label, Relation
from graphiti_session_tracking.summary import (
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
    ToolUse,
)


def summary(**extra: object) -> EnhancedSessionSummary:
    return EnhancedSessionSummary.model_validate(
        {
            "session_id": "3f1c2a9b-1111-2222-3333-444455556666",
            "project_path": "/work/app",
            "started_at": datetime(2026, 3, 1, 9, 0, tzinfo=UTC),
            "ended_at": datetime(2026, 3, 1, 10, 0, tzinfo=UTC),
            "objective": "Fix JWT expiry",
            "outcome": "completed",
            **extra,
        }
    )


def by_relation(graph_edges: list, relation: Relation) -> list:  # type: ignore[type-arg]
    return [e for e in graph_edges if e.name == relation.value]


def test_every_record_type_maps_with_facts_and_valid_at() -> None:
    s = summary(
        files_modified=["src/auth.py", ".env"],
        key_decisions=[
            DecisionRecord(
                decision="Use RS256 for JWT signing",
                rationale="keys can rotate",
                alternatives=["HS256"],
                confidence=0.9,
                by="user",
            )
        ],
        errors_resolved=[
            ErrorResolution(
                error="401 Unauthorized",
                root_cause="JWT_EXPIRY in seconds",
                fix="Edited .env",
                verification="pytest passed",
            )
        ],
        config_changes=[
            ConfigChange(
                file=".env", setting="JWT_EXPIRY", old_value="60", new_value="3600", reason="was minutes"
            )
        ],
        completed_tasks=["Fix expiry"],
        next_steps=["Add schema validation"],
        discoveries=["Tokens are checked in src/auth.py"],
        tools_used=[ToolUse(name="Edit", calls=3, intent="modify", domain="code")],
    )
    graph = map_summary(s, "app_1")
    labels = sorted(n.labels[0] for n in graph.entities)
    assert labels == [
        "ConfigChange",
        "Decision",
        "Discovery",
        "ErrorResolution",
        "File",
        "File",
        "Task",
        "Task",
        "Tool",
    ]
    facts = {e.name: e.fact for e in graph.edges if e.name != "AFFECTS_FILE"}
    assert (
        facts["MADE_DECISION"]
        == "Session 3f1c2a9b decided: Use RS256 for JWT signing because keys can rotate"
    )
    assert (
        facts["CHANGED_CONFIG"]
        == "Session 3f1c2a9b changed JWT_EXPIRY in .env from 60 to 3600 because was minutes"
    )
    assert facts["RESOLVED_ERROR"].startswith(
        "Session 3f1c2a9b resolved '401 Unauthorized'; root cause: JWT_EXPIRY"
    )
    assert facts["PLANNED_NEXT"] == "Session 3f1c2a9b planned next: Add schema validation"
    assert facts["USED_TOOL"] == "Session 3f1c2a9b used Edit (3 calls)"
    # The error's fix names .env: it affects that file; the decision names none.
    affects = by_relation(graph.edges, Relation.AFFECTS_FILE)
    files = {n.uuid: n.attributes["path"] for n in graph.entities if n.labels == [Label.FILE.value]}
    assert [files[e.target_node_uuid] for e in affects] == [".env"]
    assert all(e.valid_at == s.ended_at and e.episodes == [graph.episode.uuid] for e in graph.edges)
    decision = next(n for n in graph.entities if n.labels == ["Decision"])
    assert decision.attributes == {
        "decision": "Use RS256 for JWT signing",
        "rationale": "keys can rotate",
        "alternatives": ["HS256"],
        "confidence": 0.9,
        "by": "user",
        "session_id": s.session_id,
    }
    tasks = {n.name: n.attributes["status"] for n in graph.entities if n.labels == ["Task"]}
    assert tasks == {"Fix expiry": "completed", "Add schema validation": "next"}
    session_attrs = graph.session_node.attributes
    assert session_attrs["started_at"] == "2026-03-01T09:00:00.000000+00:00"
    assert {f"activity_{d}" for d in ("building", "fixing", "testing")} <= set(session_attrs)


def test_file_names_match_as_whole_words_only() -> None:
    s = summary(
        files_modified=["src/app.py", "app.py.bak"],
        errors_resolved=[ErrorResolution(error="SyntaxError in src/app.py line 3")],
        key_decisions=[DecisionRecord(decision="Rename myapp.pyc handling")],
    )
    graph = map_summary(s, "g")
    affects = by_relation(graph.edges, Relation.AFFECTS_FILE)
    assert len(affects) == 1


def test_continues_links_to_the_previous_session_and_shared_nodes_have_group_keys() -> None:
    graph = map_summary(summary(files_modified=["a.py"]), "g", previous_session_uuid="prev-uuid")
    (continues,) = by_relation(graph.edges, Relation.CONTINUES)
    assert continues.source_node_uuid == graph.session_node.uuid and continues.target_node_uuid == "prev-uuid"
    other = map_summary(summary(session_id="other-session", files_modified=["a.py"]), "g")
    assert graph.entities[0].uuid == other.entities[0].uuid  # File nodes are shared in a group
    assert map_summary(summary(files_modified=["a.py"]), "h").entities[0].uuid != graph.entities[0].uuid
