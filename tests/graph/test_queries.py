"""The Cypher query pack on both backends: exact rows for every query and filter, no injection."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import TRANSCRIPTS

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.dialect import FALKORDB, NEO4J
from graphiti_session_tracking.graph.queries import (
    QUERY_FILTERS,
    QUERY_NAMES,
    QueryError,
    cypher,
    parse_time,
    run_query,
)
from graphiti_session_tracking.graph.schema import Label, Relation
from graphiti_session_tracking.graph.writer import SessionGraphWriter, write_query
from graphiti_session_tracking.group_id import GroupId, InvalidGroupIdError
from graphiti_session_tracking.summary import EnhancedSessionSummary, summarize_session
from graphiti_session_tracking.transcripts import read_transcript

APP = GroupId.for_project("/work/app")
API = GroupId.for_project("/work/api")
S1 = "aaaa1111-0000-4000-8000-000000000001"
S2 = "bbbb2222-0000-4000-8000-000000000002"
S3 = "cccc3333-0000-4000-8000-000000000003"
T1 = "2026-01-10T10:00:00+00:00"
T2 = "2026-01-20T10:00:00+00:00"
T3 = "2026-02-01T10:00:00+00:00"
NASTY = "it's `x` \"}) DETACH DELETE n //"


def summary(session_id: str, project: str, day: datetime, **extra: Any) -> EnhancedSessionSummary:
    return EnhancedSessionSummary.model_validate(
        {
            "session_id": session_id,
            "project_path": project,
            "started_at": day.replace(hour=9),
            "ended_at": day.replace(hour=10),
            "outcome": "completed",
            "message_count": 20,
            "duration_minutes": 60,
            **extra,
        }
    )


SUMMARIES = [
    summary(
        S1,
        "/work/app",
        datetime(2026, 1, 10, tzinfo=UTC),
        objective="Fix JWT expiry on login",
        activity_vector={"fixing": 0.8, "configuring": 0.5, "testing": 0.2},
        files_modified=["src/auth.py", ".env"],
        key_decisions=[
            {
                "decision": "Sign JWTs with RS256 in src/auth.py",
                "rationale": "Keys can ROTATE without redeploying",
                "alternatives": ["HS256", "EdDSA"],
                "confidence": 0.9,
                "by": "user",
            }
        ],
        errors_resolved=[
            {
                "error": "401 Unauthorized on /login",
                "root_cause": "JWT_EXPIRY read as minutes",
                "fix": "Edited .env",
                "verification": "pytest passed",
            }
        ],
        config_changes=[
            {
                "file": ".env",
                "setting": "JWT_EXPIRY",
                "old_value": "60",
                "new_value": "3600",
                "reason": "seconds",
            }
        ],
        test_results={
            "framework": "pytest",
            "total": 12,
            "passed": 10,
            "failed": 2,
            "failed_tests": ["t_a", "t_b"],
        },
    ),
    summary(
        S2,
        "/work/app",
        datetime(2026, 1, 20, tzinfo=UTC),
        objective="Build the session store",
        activity_vector={"building": 0.9, "testing": 0.4},
        files_modified=["pyproject.toml", "src/store.py"],
        key_decisions=[
            {
                "decision": "Keep sessions in Redis",
                "rationale": "Postgres lookups were slow",
                "confidence": 0.5,
            }
        ],
        config_changes=[
            {"file": "pyproject.toml", "setting": "tool.ruff.line-length", "new_value": "120"},
            {"file": ".env", "setting": "JWT_EXPIRY", "old_value": "3600", "new_value": "7200"},
        ],
        test_results={"framework": "pytest", "total": 12, "passed": 12, "failed": 0, "coverage_pct": 91.5},
    ),
    summary(
        S3,
        "/work/api",
        datetime(2026, 2, 1, tzinfo=UTC),
        objective="Fix the router panic",
        activity_vector={"fixing": 0.6, "testing": 0.7},
        files_modified=["main.go"],
        key_decisions=[{"decision": "Use chi as the router", "rationale": "smaller than gin"}],
        errors_resolved=[
            {
                "error": "panic: assignment to nil map in main.go",
                "root_cause": "map never initialized",
                "fix": "make()",
            }
        ],
        test_results={"framework": "go", "total": 5, "passed": 5, "failed": 0},
        agent="codex",
        agent_version="0.40.0",
        commits=[
            {
                "sha": "9f1c2a7",
                "message": "Initialize the route map",
                "branch": "fix/panic",
                "committed_at": "2026-02-01T09:40:00+00:00",
                "files": ["main.go"],
                "pushed": True,
                "pull_request": 17,
            },
            {
                "sha": "0b3e4d5",
                "message": "Add a regression test",
                "committed_at": "2026-02-01T09:50:00+00:00",
            },
        ],
    ),
]

DECISION_1 = {
    "session_id": S1,
    "decision": "Sign JWTs with RS256 in src/auth.py",
    "rationale": "Keys can ROTATE without redeploying",
    "alternatives": ["HS256", "EdDSA"],
    "confidence": 0.9,
    "by": "user",
    "files": ["src/auth.py"],
    "valid_at": T1,
    "group_id": APP,
    "names_file": False,
    "holds": True,
    "superseded_by": [],
    "until": None,
}
DECISION_2 = {
    "session_id": S2,
    "decision": "Keep sessions in Redis",
    "rationale": "Postgres lookups were slow",
    "alternatives": [],
    "confidence": 0.5,
    "by": None,
    "files": [],
    "valid_at": T2,
    "group_id": APP,
    "names_file": False,
    "holds": True,
    "superseded_by": [],
    "until": None,
}
DECISION_3 = {
    "session_id": S3,
    "decision": "Use chi as the router",
    "rationale": "smaller than gin",
    "alternatives": [],
    "confidence": None,
    "by": None,
    "files": [],
    "valid_at": T3,
    "group_id": API,
    "names_file": False,
    "holds": True,
    "superseded_by": [],
    "until": None,
}
ERROR_1 = {
    "session_id": S1,
    "error": "401 Unauthorized on /login",
    "root_cause": "JWT_EXPIRY read as minutes",
    "fix": "Edited .env",
    "verification": "pytest passed",
    "files": [".env"],
    "valid_at": T1,
    "group_id": APP,
    "names_file": False,
    "times_seen": 1,
    "first_seen": T1,
    "last_seen": T1,
    "last_fix": "Edited .env",
}
ERROR_3 = {
    "session_id": S3,
    "error": "panic: assignment to nil map in main.go",
    "root_cause": "map never initialized",
    "fix": "make()",
    "verification": "",
    "files": ["main.go"],
    "valid_at": T3,
    "group_id": API,
    "names_file": False,
    "times_seen": 1,
    "first_seen": T3,
    "last_seen": T3,
    "last_fix": "make()",
}


def naming(row: dict[str, Any]) -> dict[str, Any]:
    """The row as a --file query returns it when the record itself names the file."""
    return {**row, "names_file": True}


@pytest.fixture
async def written(backend: Backend) -> Backend:
    results = await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    assert [r.status for r in results] == ["created"] * 3
    return backend


async def test_decisions_with_every_filter(written: Backend) -> None:
    assert await run_query(written, "decisions") == [DECISION_3, DECISION_2, DECISION_1]
    assert await run_query(written, "decisions", group_id=APP) == [DECISION_2, DECISION_1]
    # By file: named by the decision (AFFECTS_FILE) or modified by the deciding session.
    assert await run_query(written, "decisions", file="src/auth.py") == [naming(DECISION_1)]
    assert await run_query(written, "decisions", file="pyproject.toml") == [DECISION_2]  # same session
    assert await run_query(written, "decisions", file="nope.py") == []
    # Text: case-insensitive, in the decision or its rationale.
    assert await run_query(written, "decisions", text="rotate") == [DECISION_1]
    assert await run_query(written, "decisions", text="REDIS") == [DECISION_2]
    # Time window on the edge's valid_at (the session end); a bare --until date includes that day.
    assert await run_query(written, "decisions", since="2026-01-15") == [DECISION_3, DECISION_2]
    assert await run_query(written, "decisions", until="2026-01-20") == [DECISION_2, DECISION_1]
    assert await run_query(written, "decisions", since="2026-01-20T10:00:00Z", until=T2) == [DECISION_2]
    assert await run_query(written, "decisions", since="2026-01-20T10:00:01+00:00", until="2026-01-31") == []
    # Confidence floor, a Cypher parameter: a decision stored without a confidence does not pass.
    assert await run_query(written, "decisions", min_confidence=0.8) == [DECISION_1]
    assert await run_query(written, "decisions", min_confidence=0.5) == [DECISION_2, DECISION_1]
    assert await run_query(written, "decisions", min_confidence=0) == [DECISION_2, DECISION_1]
    assert await run_query(written, "decisions", min_confidence=0.95) == []
    with pytest.raises(QueryError, match="between 0 and 1"):
        await run_query(written, "decisions", min_confidence=1.5)
    # Session by id or short id; limit after merging groups.
    assert await run_query(written, "decisions", session=S3) == [DECISION_3]
    assert await run_query(written, "decisions", session=S1[:8]) == [DECISION_1]
    assert await run_query(written, "decisions", limit=1) == [DECISION_3]


async def test_errors_with_every_filter(written: Backend) -> None:
    assert await run_query(written, "errors") == [ERROR_3, ERROR_1]
    assert await run_query(written, "errors", text="unauthorized") == [ERROR_1]
    assert await run_query(written, "errors", root_cause="NEVER INIT") == [ERROR_3]
    assert await run_query(written, "errors", file=".env") == [naming(ERROR_1)]
    assert await run_query(written, "errors", file="src/auth.py") == [ERROR_1]  # its session modified it
    assert await run_query(written, "errors", file="main.go", group_id=API) == [naming(ERROR_3)]
    assert await run_query(written, "errors", since="2026-01-11") == [ERROR_3]
    assert await run_query(written, "errors", until="2026-01-10") == [ERROR_1]
    assert await run_query(written, "errors", session="cccc3333") == [ERROR_3]
    assert await run_query(written, "errors", text="401", root_cause="map") == []


async def test_config_history_oldest_first(written: Backend) -> None:
    first = {
        "setting": "JWT_EXPIRY",
        "file": ".env",
        "old_value": "60",
        "new_value": "3600",
        "reason": "seconds",
        "session_id": S1,
        "valid_at": T1,
        "until": T2,  # the next change of the same setting in the same file ends this value
        "group_id": APP,
    }
    second = {
        **first,
        "old_value": "3600",
        "new_value": "7200",
        "reason": "",
        "session_id": S2,
        "valid_at": T2,
        "until": None,
    }
    ruff = {
        "setting": "tool.ruff.line-length",
        "file": "pyproject.toml",
        "old_value": None,
        "new_value": "120",
        "reason": "",
        "session_id": S2,
        "valid_at": T2,
        "until": None,
        "group_id": APP,
    }
    assert await run_query(written, "config-changes") == [first, second, ruff]
    assert await run_query(written, "config-changes", current=True) == [second, ruff]
    assert await run_query(written, "config-changes", setting="jwt_expiry") == [first, second]
    assert await run_query(written, "config-changes", setting="line-length") == [ruff]  # last dotted part
    assert await run_query(written, "config-changes", setting="length") == []  # not a substring search
    assert await run_query(written, "config-changes", file=".env", since="2026-01-15") == [second]
    assert await run_query(written, "config-changes", session=S2, file="pyproject.toml") == [ruff]
    assert await run_query(written, "config-changes", group_id=API) == []


async def test_files_keeps_its_rows_and_takes_a_window(written: Backend) -> None:
    def row(path: str, group: str, sessions: int, last: str) -> dict[str, Any]:
        return {"path": path, "group_id": group, "sessions": sessions, "last_modified_at": last}

    assert await run_query(written, "files") == [
        row(".env", APP, 1, T1),
        row("main.go", API, 1, T3),
        row("pyproject.toml", APP, 1, T2),
        row("src/auth.py", APP, 1, T1),
        row("src/store.py", APP, 1, T2),
    ]
    assert await run_query(written, "files", since="2026-01-15", until="2026-01-20") == [
        row("pyproject.toml", APP, 1, T2),
        row("src/store.py", APP, 1, T2),
    ]
    assert await run_query(written, "files", group_id=API, limit=5) == [row("main.go", API, 1, T3)]


async def test_sessions_by_dominant_activity_and_text(written: Backend) -> None:
    def row(
        session_id: str, objective: str, primary: str, score: float | None, day: str, group: str
    ) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "objective": objective,
            "outcome": "completed",
            "primary_activity": primary,
            "activity_score": score,
            "started_at": f"{day}T09:00:00.000000+00:00",
            "ended_at": f"{day}T10:00:00.000000+00:00",
            "message_count": 20,
            "duration_minutes": 60,
            "agent": "codex" if session_id == S3 else "claude-code",
            "agent_version": "0.40.0" if session_id == S3 else None,
            "group_id": group,
        }

    fixing_1 = row(S1, "Fix JWT expiry on login", "fixing", 0.8, "2026-01-10", APP)
    fixing_3 = row(S3, "Fix the router panic", "testing", 0.6, "2026-02-01", API)
    assert await run_query(written, "sessions", activity="fixing") == [fixing_1, fixing_3]
    testing = await run_query(written, "sessions", activity="testing")
    assert [(r["session_id"], r["activity_score"]) for r in testing] == [(S3, 0.7), (S2, 0.4)]
    assert await run_query(written, "sessions", activity="documenting") == []
    newest = await run_query(written, "sessions")
    assert [r["session_id"] for r in newest] == [S3, S2, S1] and newest[0]["activity_score"] is None
    assert [r["session_id"] for r in await run_query(written, "sessions", text="FIX")] == [S3, S1]
    assert await run_query(written, "sessions", activity="fixing", since="2026-01-11") == [fixing_3]
    assert [r["session_id"] for r in await run_query(written, "sessions", until="2026-01-20")] == [S2, S1]
    with pytest.raises(QueryError, match="unknown activity"):
        await run_query(written, "sessions", activity="dancing")
    assert [r["session_id"] for r in await run_query(written, "sessions", agent="codex")] == [S3]
    assert [r["session_id"] for r in await run_query(written, "sessions", agent="claude-code")] == [S2, S1]


async def test_commits_and_the_session_that_made_them(written: Backend) -> None:
    rows = await run_query(written, "commits")
    assert [(r["sha"], r["message"], r["session_id"], r["agent"]) for r in rows] == [
        ("0b3e4d5", "Add a regression test", S3, "codex"),
        ("9f1c2a7", "Initialize the route map", S3, "codex"),
    ]
    assert rows[1] == {
        "sha": "9f1c2a7",
        "message": "Initialize the route map",
        "branch": "fix/panic",
        "committed_at": "2026-02-01T09:40:00.000000+00:00",
        "files": ["main.go"],
        "pushed": True,
        "pull_request": 17,
        "session_id": S3,
        "objective": "Fix the router panic",
        "agent": "codex",
        "group_id": API,
    }
    assert [r["sha"] for r in await run_query(written, "commits", sha="9F1C")] == ["9f1c2a7"]
    assert [r["sha"] for r in await run_query(written, "commits", file="main.go")] == ["9f1c2a7"]
    assert [r["sha"] for r in await run_query(written, "commits", until="2026-02-01T09:45:00Z")] == [
        "9f1c2a7"
    ]
    assert await run_query(written, "commits", session="aaaa1111") == []
    # Which session made this commit, and why: everything that session recorded.
    made = await run_query(written, "session", commit="9f1c2a7")
    assert {r["session_id"] for r in made} == {S3}
    assert ("MADE_DECISION", "Use chi as the router") in {(r["relation"], r["name"]) for r in made}
    assert ("COMMITTED_FILE" not in {r["relation"] for r in made}) and {
        r["name"] for r in made if r["relation"] == "MADE_COMMIT"
    } == {"9f1c2a7 Initialize the route map", "0b3e4d5 Add a regression test"}
    assert await run_query(written, "session", commit="ffff") == []
    with pytest.raises(QueryError, match="commit sha"):
        await run_query(written, "commits", sha="HEAD~1")


async def test_tests_over_time(written: Backend) -> None:
    def row(
        session_id: str, framework: str, passed: int, total: int, failed: int, **extra: Any
    ) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "framework": framework,
            "passed": passed,
            "total": total,
            "failed": failed,
            "skipped": 0,
            "coverage_pct": extra.get("coverage_pct"),
            "failed_tests": extra.get("failed_tests", []),
            "valid_at": extra["valid_at"],
            "group_id": extra.get("group_id", APP),
        }

    run_1 = row(S1, "pytest", 10, 12, 2, failed_tests=["t_a", "t_b"], valid_at=T1)
    run_2 = row(S2, "pytest", 12, 12, 0, coverage_pct=91.5, valid_at=T2)
    run_3 = row(S3, "go", 5, 5, 0, valid_at=T3, group_id=API)
    assert await run_query(written, "tests") == [run_1, run_2, run_3]
    assert await run_query(written, "tests", since="2026-01-11") == [run_2, run_3]
    assert await run_query(written, "tests", session="bbbb2222") == [run_2]


async def test_what_one_session_touched(written: Backend) -> None:
    rows = await run_query(written, "session", session="bbbb2222")
    assert [(r["relation"], r["label"], r["name"]) for r in rows] == [
        ("CHANGED_CONFIG", "ConfigChange", ".env: JWT_EXPIRY"),
        ("CHANGED_CONFIG", "ConfigChange", "pyproject.toml: tool.ruff.line-length"),
        ("CONTINUES", "Session", "Fix JWT expiry on login"),
        ("MADE_DECISION", "Decision", "Keep sessions in Redis"),
        ("MODIFIED_FILE", "File", "pyproject.toml"),
        ("MODIFIED_FILE", "File", "src/store.py"),
        ("RAN_TESTS", "TestRun", "pytest: 12/12 passed"),
    ]
    assert {(r["session_id"], r["group_id"], r["valid_at"]) for r in rows} == {(S2, APP, T2)}
    assert (
        rows[3]["fact"]
        == "Session bbbb2222 decided: Keep sessions in Redis because Postgres lookups were slow"
    )
    assert await run_query(written, "session", session="ffffffff") == []
    # A group with nothing in it (on FalkorDB: no graph of that name) has no rows, on both backends.
    assert await run_query(written, "session", session="bbbb2222", group_id="nosuch_group") == []
    with pytest.raises(QueryError, match="needs a session id"):
        await run_query(written, "session")


async def count_everything(backend: Backend) -> tuple[int, int]:
    nodes = edges = 0
    for group in await backend.list_groups():
        driver = await backend.driver_for(group)
        records, _, _ = await driver.execute_query(
            "MATCH (n) WHERE n.group_id = $g RETURN count(n) AS c", g=group
        )
        nodes += records[0]["c"]
        records, _, _ = await driver.execute_query(
            "MATCH ()-[r]->() WHERE r.group_id = $g RETURN count(r) AS c", g=group
        )
        edges += records[0]["c"]
    return nodes, edges


async def test_filters_are_data_never_cypher(backend: Backend) -> None:
    """Quotes, backticks and a closing-brace DETACH DELETE in filters and stored names only match."""
    nasty_file = f"src/{NASTY}.py"
    tricky = summary(
        "dddd4444-0000-4000-8000-000000000004",
        "/work/app",
        datetime(2026, 3, 1, tzinfo=UTC),
        objective=f"Handle {NASTY}",
        files_modified=[nasty_file],
        key_decisions=[
            {"decision": f"Quote {NASTY} safely in {nasty_file}", "rationale": "'; MATCH (n) DETACH DELETE n"}
        ],
        errors_resolved=[{"error": f"Error {NASTY}", "root_cause": "`backticks`"}],
        config_changes=[{"file": nasty_file, "setting": f"a.{NASTY}", "new_value": "'}"}],
    )
    await SessionGraphWriter(backend).ingest_many([*SUMMARIES, tricky])
    before = await count_everything(backend)
    assert before[0] > 0

    decisions = await run_query(backend, "decisions", text=NASTY, file=nasty_file)
    assert [(d["decision"], d["files"]) for d in decisions] == [
        (f"Quote {NASTY} safely in {nasty_file}", [nasty_file])
    ]
    assert [d["decision"] for d in await run_query(backend, "decisions", text="detach delete n")] == [
        f"Quote {NASTY} safely in {nasty_file}"
    ]
    errors = await run_query(backend, "errors", text=NASTY, root_cause="`backticks`", file=nasty_file)
    assert [e["error"] for e in errors] == [f"Error {NASTY}"]
    changes = await run_query(backend, "config-changes", setting=NASTY, file=nasty_file)
    assert [(c["setting"], c["new_value"]) for c in changes] == [(f"a.{NASTY}", "'}")]
    assert [s["objective"] for s in await run_query(backend, "sessions", text=NASTY)] == [f"Handle {NASTY}"]
    for name in ("decisions", "errors", "config-changes", "tests", "session"):
        assert await run_query(backend, name, session=f"x' OR 1=1 }}) DETACH DELETE n // {NASTY}") == []
    for name, key in (("decisions", "file"), ("errors", "root_cause"), ("config-changes", "setting")):
        assert await run_query(backend, name, **{key: "') DETACH DELETE n RETURN 1 AS x //"}) == []
    assert await count_everything(backend) == before


async def test_real_transcripts(backend: Backend) -> None:
    summaries = [await summarize_session(read_transcript(p)) for p in sorted(TRANSCRIPTS.glob("*.jsonl"))]
    await SessionGraphWriter(backend).ingest_many(summaries)
    port = next(s for s in summaries if s.session_id.startswith("c7d3d95c"))
    group = GroupId.for_project(port.project_path or "")
    end = "2026-01-21T06:24:31.843000+00:00"

    assert await run_query(backend, "decisions") == [
        {
            "session_id": port.session_id,
            "decision": "Used Result<T, E> instead of raising exceptions for factorial()",
            "rationale": "",
            "alternatives": ["raising exceptions"],
            "confidence": 0.6,
            "by": "assistant",
            "files": [],
            "valid_at": end,
            "group_id": group,
            "names_file": False,
            "holds": True,
            "superseded_by": [],
            "until": None,
        }
    ]
    assert await run_query(backend, "config-changes", setting="missing_docs") == [
        {
            "setting": "lints.rust.missing_docs",
            "file": "Cargo.toml",
            "old_value": None,
            "new_value": "warn",
            "reason": "",
            "session_id": port.session_id,
            "valid_at": end,
            "until": None,
            "group_id": group,
        }
    ]
    tests = await run_query(backend, "tests")
    assert [
        (t["session_id"][:8], t["framework"], t["passed"], t["total"], t["coverage_pct"]) for t in tests
    ] == [
        ("c64cc478", "pytest", 2, 2, None),
        ("c7d3d95c", "cargo", 29, 29, 100.0),
    ]
    assert [r["session_id"][:8] for r in await run_query(backend, "sessions", activity="testing")] == [
        "c7d3d95c",
        "c64cc478",
    ]
    touched = await run_query(backend, "session", session="c7d3d95c")
    assert {r["label"] for r in touched} == {
        "Commit",
        "ConfigChange",
        "Decision",
        "File",
        "Task",
        "TestRun",
        "Tool",
    }
    assert sum(r["relation"] == "MODIFIED_FILE" for r in touched) == 8
    assert len(await run_query(backend, "files")) == 14
    assert await run_query(backend, "errors", since="2026-01-22") == []


def test_pack_is_documented_and_uses_only_the_fixed_vocabulary() -> None:
    import re

    known = {label.value for label in Label} | {"Entity"}
    relations = {relation.value for relation in Relation} | {"RELATES_TO"}
    for name in QUERY_NAMES:
        text = cypher(name)
        lines = text.splitlines()
        assert lines[0].startswith("// ") and lines[0].endswith("?"), name
        assert any(line.startswith("// Parameters:") for line in lines), name
        assert set(re.findall(r"\(\w+((?::\w+)+)", text)) <= {f":{lab}" for lab in known} | {
            ":Entity:" + lab for lab in known
        }, name
        assert set(re.findall(r"\[\w+:(\w+)", text)) <= relations, name
        assert set(re.findall(r"'([A-Z_]{5,})'", text)) <= relations, name
        assert "LIMIT $limit" in text, name


def test_dates_parse_to_utc_bounds() -> None:
    assert parse_time("2026-01-21") == datetime(2026, 1, 21, tzinfo=UTC)
    assert parse_time("2026-01-21", end_of_day=True) == datetime(2026, 1, 21, 23, 59, 59, 999999, tzinfo=UTC)
    assert parse_time("2026-01-21T10:30:00+02:00") == datetime(2026, 1, 21, 8, 30, tzinfo=UTC)
    assert parse_time("2026-01-21T10:30:00Z") == datetime(2026, 1, 21, 10, 30, tzinfo=UTC)
    with pytest.raises(QueryError, match="invalid date"):
        parse_time("last tuesday")


NASTY_GROUP_IDS = ["x}) DETACH DELETE n //", "a`b", "g'); MATCH (n) DETACH DELETE n; //", "", "a-b", "é"]


@pytest.mark.parametrize("group_id", NASTY_GROUP_IDS)
async def test_group_ids_are_checked_before_any_cypher(backend: Backend, group_id: str) -> None:
    """A group id names a FalkorDB graph and is matched in Cypher: only [A-Za-z0-9_] gets in."""
    await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    before = await count_everything(backend)
    with pytest.raises(InvalidGroupIdError):
        await run_query(backend, "decisions", group_id=group_id)
    with pytest.raises(InvalidGroupIdError):
        await SessionGraphWriter(backend).ingest_many(SUMMARIES[:1], group_id=group_id)
    with pytest.raises(InvalidGroupIdError):
        await backend.driver_for(group_id)
    assert await count_everything(backend) == before


async def test_project_paths_full_of_cypher_give_safe_group_ids(backend: Backend) -> None:
    project = f"/work/{NASTY}/it's `x`"
    stored = summary(
        "eeee5555-0000-4000-8000-000000000005", project, datetime(2026, 3, 2, tzinfo=UTC), objective="Quote"
    )
    (result,) = await SessionGraphWriter(backend).ingest_many([stored])
    assert result.group_id == GroupId.for_project(project) and result.group_id.isascii()
    rows = await run_query(backend, "sessions", group_id=result.group_id)
    assert [r["session_id"] for r in rows] == [stored.session_id]


def test_statements_use_only_the_fixed_labels_and_relations() -> None:
    """Every label and relationship type in every statement we send comes from the schema's sets."""
    allowed_labels = {label.value for label in Label} | {"Entity", "Episodic", "GraphitiSessionsLock"}
    allowed_types = {"RELATES_TO", "MENTIONS"}
    for statement in [write_query(NEO4J), write_query(FALKORDB), *(cypher(name) for name in QUERY_NAMES)]:
        text = re.sub(r"//[^\n]*", "", statement)  # comments may say anything
        labels = set(re.findall(r"\(\s*\w*\s*((?::\s*\w+)+)", text))
        for group in labels:
            assert set(re.findall(r"\w+", group)) <= allowed_labels, group
        assert set(re.findall(r"\[\s*\w*\s*:\s*(\w+)", text)) <= allowed_types
        assert set(re.findall(r"\bSET\s+\w+\s*:\s*(\w+)", text)) <= allowed_labels
    assert {relation.value for relation in Relation} >= {"MADE_DECISION", "CONTINUES"}


@pytest.mark.parametrize("name", QUERY_NAMES)
@pytest.mark.parametrize("filtered", [False, True])
async def test_no_canned_query_scans_the_relation_index_per_row(
    falkordb_config: Any, name: str, filtered: bool
) -> None:
    """FalkorDB answers `r.name = 'X'` with a scan of every edge of that name for each start node,
    which grows with the square of the graph (`query tests` went from 40 to 850 ms for 5x the
    sessions); the queries compare `r.name + ''`, which it filters while traversing instead."""
    from graphiti_session_tracking.graph.backends import open_backend
    from graphiti_session_tracking.graph.queries import _without_unused_filters, query_params

    filters: dict[str, Any] = {"session": "abc"} if name == "session" else {}
    if filtered:
        every = {
            "file": "a.py",
            "seen_before": True,
            "current": True,
            "session": "abc",
            "text": "x",
            "sha": "abc1",
            "commit": "abc1",
            "agent": "codex",
        }
        filters = {k: v for k, v in every.items() if k in QUERY_FILTERS[name]}
    async with open_backend(falkordb_config) as backend:
        driver = await backend.driver_for("plans")
        await driver.execute_query("CREATE (:Entity:Session {uuid: 'x'})")
        params = {**query_params(FALKORDB, name, filters), "group_id": None, "limit": 5}
        graph = backend.driver.client.select_graph("plans")  # falkordb-py: it can explain
        naive = (
            "MATCH (s:Entity:Session)-[r:RELATES_TO]->(t:Entity:TestRun) WHERE r.name = 'RAN_TESTS' RETURN s"
        )
        assert "Edge By Index Scan" in str(await graph.explain(naive))  # what this test looks for
        plan = await graph.explain(_without_unused_filters(cypher(name), filters), params)
        assert "Edge By Index Scan" not in str(plan)


# The record queries choose their rows by the record's own fields; this is what makes it true.
RECORD_EDGES = {
    "Decision": "MADE_DECISION",
    "ErrorResolution": "RESOLVED_ERROR",
    "ConfigChange": "CHANGED_CONFIG",
    "TestRun": "RAN_TESTS",
}


async def test_a_record_carries_its_session_and_its_time(written: Backend) -> None:
    """created_at of a decision, error, config change or test run is its session's end (the edge's
    valid_at) and session_id names the session: the queries filter, order and cut on them."""
    groups = list(await written.list_groups()) if written.graph_per_group else [None]
    checked = 0
    for label, relation in RECORD_EDGES.items():
        statement = (
            f"MATCH (s:Entity:Session)-[r:RELATES_TO]->(x:Entity:{label}) WHERE r.name = $relation "
            "RETURN s.session_id AS sid, x.session_id AS own, r.valid_at = x.created_at AS same"
        )
        for group in groups:
            for row in await written.read(group, statement, {"relation": relation}):
                assert (row["own"], row["same"]) == (row["sid"], True), label
                checked += 1
    assert checked >= 8


async def _plan(falkordb_config: Any, name: str, filters: dict[str, Any]) -> list[str]:
    """FalkorDB's plan of a canned query with these filters (on a nearly empty graph), line by line."""
    from graphiti_session_tracking.graph.backends import open_backend
    from graphiti_session_tracking.graph.queries import _without_unused_filters, query_params

    async with open_backend(falkordb_config) as backend:
        driver = await backend.driver_for("plans")
        await driver.execute_query("CREATE (:Entity:Session {uuid: 'x'})")
        params = {**query_params(FALKORDB, name, filters), "group_id": None, "limit": 5}
        plan = await backend.driver.client.select_graph("plans").explain(
            _without_unused_filters(cypher(name), filters), params
        )
    return str(plan).splitlines()


@pytest.mark.parametrize(
    ("name", "filters"),
    [
        ("decisions", {}),
        ("decisions", {"file": "a.py"}),
        ("errors", {"text": "x"}),
        ("errors", {"file": "a.py"}),
        ("config-changes", {"file": "a.py"}),
        ("tests", {}),
    ],
)
async def test_record_queries_follow_relations_for_the_rows_shown_only(
    falkordb_config: Any, name: str, filters: dict[str, Any]
) -> None:
    """At 5,000 sessions following every record to its session cost more than the rest of a query
    (8.5 against 5.2 ms a project for decisions): the plan cuts to $limit first."""
    plan = await _plan(falkordb_config, name, filters)
    to_session = [i for i, line in enumerate(plan) if "[r:RELATES_TO]" in line and "Session" in line]
    limits = [i for i, line in enumerate(plan) if line.strip().startswith("Limit")]
    # The plan prints its last step first: the walk to the session sits above the deepest limit.
    assert to_session and limits and max(to_session) < max(limits), "\n".join(plan)


# A key the built-in rules redact (an OpenAI key's form), and a terminal title escape.
PLANTED = "sk-proj-" + "Q7fK2mZp9XwL4vB8nR3tY6uH1jD5sG0aE"
ESCAPE = "\x1b]0;pwned\x07"


async def _plant(backend: Backend, group: str, text: str) -> None:
    """Text put straight into a stored decision, as a graph written by another hand could hold."""
    driver = await backend.driver_for(group)
    await driver.execute_query(
        "MATCH (d:Entity:Decision) WHERE d.group_id = $group_id SET d.decision = $text",
        group_id=group,
        text=text,
    )


async def test_rows_of_sessions_written_by_todays_rules_are_not_redacted_twice(written: Backend) -> None:
    # The writer stamps each session with the rules that redacted it; a row of a group whose every
    # session carries today's stamp only loses its control characters on the way out, however
    # few its rows.
    driver = await written.driver_for(APP)
    records, _, _ = await driver.execute_query(
        "MATCH (s:Entity:Session) WHERE s.group_id = $group_id RETURN s.redaction AS stamp", group_id=APP
    )
    assert {r["stamp"] for r in records} == {SessionGraphWriter(written).redactor.signature}
    await _plant(written, APP, f"{ESCAPE}use {PLANTED}")
    rows = await run_query(written, "decisions", group_id=APP)
    assert {r["decision"] for r in rows} == {f"use {PLANTED}"}  # trusted as redacted; controls stripped


async def test_a_group_with_a_session_written_under_other_rules_is_redacted_again(written: Backend) -> None:
    driver = await written.driver_for(APP)
    await driver.execute_query(
        "MATCH (s:Entity:Session) WHERE s.group_id = $group_id SET s.redaction = 'older-rules'", group_id=APP
    )
    await _plant(written, APP, f"{ESCAPE}use {PLANTED}")
    rows = await run_query(written, "decisions", group_id=APP)
    assert {r["decision"] for r in rows} == {"use [REDACTED:openai-key]"}
    # Without a group: each group's rows by their own group's stamps.
    every = await run_query(written, "decisions")
    assert {r["decision"] for r in every if r["group_id"] == APP} == {"use [REDACTED:openai-key]"}


async def test_an_unchanged_session_ingested_again_under_new_rules_is_restamped(written: Backend) -> None:
    driver = await written.driver_for(APP)
    await driver.execute_query(
        "MATCH (s:Entity:Session) WHERE s.group_id = $group_id SET s.redaction = 'older-rules'", group_id=APP
    )
    writer = SessionGraphWriter(written)
    results = await writer.ingest_many([s for s in SUMMARIES if s.project_path == "/work/app"])
    assert {r.status for r in results} == {"unchanged"}
    records, _, _ = await driver.execute_query(
        "MATCH (s:Entity:Session) WHERE s.group_id = $group_id RETURN s.redaction AS stamp", group_id=APP
    )
    assert {r["stamp"] for r in records} == {writer.redactor.signature}


@pytest.mark.parametrize(
    ("name", "filters"),
    [("decisions", {}), ("decisions", {"since": "2020-01-01"}), ("errors", {}), ("errors", {"text": "e"})],
)
async def test_many_groups_read_whole_only_the_rows_shown(
    written: Backend, name: str, filters: dict[str, Any]
) -> None:
    """Over several projects a cut query first asks each for its best rows' sort keys, then reads
    whole only the rows that make the cut: the same rows, in the same order, as reading all."""
    every = await run_query(written, name, **filters)
    if not written.graph_per_group:  # one Neo4j database: one query, nothing to choose between
        assert await run_query(written, name, limit=1, **filters) == every[:1]
        return
    asked: list[tuple[str | None, str]] = []
    read = written.read

    async def spy(group: str | None, text: str, params: dict[str, Any]) -> list[Any]:
        asked.append((group, text))
        return await read(group, text, params)

    written.read = spy  # type: ignore[method-assign]
    try:
        for limit in range(1, len(every) + 2):
            asked.clear()
            assert await run_query(written, name, limit=limit, **filters) == every[:limit]
            whole = {group for group, text in asked if "$chosen" in text}
            assert whole == {row["group_id"] for row in every[:limit]}
    finally:
        del written.read
    assert len({row["group_id"] for row in every}) > 1  # rows of several groups to choose between


@pytest.mark.parametrize("name", ["decisions", "errors"])
@pytest.mark.parametrize("filtered", [False, True])
async def test_the_walk_from_each_record_checks_no_labels(
    falkordb_config: Any, name: str, filtered: bool
) -> None:
    """FalkorDB checks a label at a traversal's far end again for every row: the walk from each
    record to its files and to its earlier or later occurrences was half the time of a query of
    every row (65 → 33 ms for a 500-session project's 1,000 decisions). The relation's name says
    what is at the far end (AFFECTS_FILE a File, SUPERSEDES and SEEN_BEFORE a record of its kind)."""
    filters: dict[str, Any] = {"file": "a.py", "seen_before": True} if filtered else {}
    plan = await _plan(falkordb_config, name, {k: v for k, v in filters.items() if k in QUERY_FILTERS[name]})
    walks = [line for line in plan if "Traverse" in line and re.search(r"\((?:af|earlier|later|b)\b", line)]
    assert walks, "\n".join(plan)
    assert not [line for line in walks if re.search(r"\((?:af|earlier|later|b):", line)], "\n".join(plan)
