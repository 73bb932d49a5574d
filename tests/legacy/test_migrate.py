"""Migration on both real backends: from the old graph episodes and from JSON/JSONL/markdown files.

The old data is created the way the old module's Graphiti left it (EpisodicNode, EntityNode,
EntityEdge, EpisodicEdge `.save(driver)`, each group in its own FalkorDB graph), then migrated
twice: the new sessions are there, every node and edge that existed before is unchanged, and the
second run changes nothing at all.
"""

from __future__ import annotations

import ast
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import TRANSCRIPTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from legacy_graph import LEGACY, add_legacy_episode, dump_database, legacy_part

from graphiti_session_tracking import migrate_legacy
from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.schema import Label, entity_uuid
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.legacy import LegacyFormatError, parse_json_records, sanitize_group_id
from graphiti_session_tracking.summary import extract_summary
from graphiti_session_tracking.transcripts import read_transcript

GROUP = "a1b2c3d4e5f6a7b8"  # a per-project hash group: valid as it is
HOST_GROUP = "DESKTOP-ABC123__global"  # not valid in the new graph
HOST_TARGET = sanitize_group_id(HOST_GROUP)
JWT_SESSION = "3f1c2a9b-5d6e-4f70-8a1b-2c3d4e5f6a7b"


def ep(n: int) -> str:
    return f"6d7e8f90-0000-4000-8000-{n:012d}"


def md(name: str) -> str:
    return (LEGACY / name).read_bytes().decode("utf-8")


async def seed_legacy_graph(backend: Backend) -> dict[str, list[str]]:
    """Old episodes in two groups: good ones, an older handoff of the same session, two broken
    ones, and an episode that is not a session summary at all."""
    older_handoff = md("s004-fix-jwt-expiry.md").replace(
        "- Added a regression test\n", "- (regression test still to write)\n"
    )
    episodes: list[tuple[str, str, str, datetime, int, list[str]]] = [
        (GROUP, "Session 001: Set up CI", md("s001-crlf.md"), datetime(2025, 9, 30, 10, tzinfo=UTC), 1, ["ci.yml", "GitHub Actions"]),
        (GROUP, "Session 002: Refactor the billing module", md("s002-hand-edited.md"), datetime(2025, 10, 2, 10, tzinfo=UTC), 2, ["billing"]),
        (GROUP, "Session 003: Fix JWT expiry handling", older_handoff, datetime(2025, 12, 8, 14, 40, tzinfo=UTC), 3, []),
        (GROUP, "Session 004: Fix JWT expiry handling", md("s004-fix-jwt-expiry.md"), datetime(2025, 12, 8, 15, 30, tzinfo=UTC), 4, ["JWT_EXPIRY", "src/auth/jwt.py"]),
        (HOST_GROUP, "Session 005: Übersetzung der Fehlermeldungen", md("s005-non-ascii.md"), datetime(2025, 12, 9, 10, tzinfo=UTC), 5, ["locales/de.json", "Japanisch"]),
        (HOST_GROUP, "Session 006: Broken front matter", md("bad-front-matter.md"), datetime(2025, 12, 10, tzinfo=UTC), 6, []),
        (HOST_GROUP, "Session 009: Shopping", md("not-a-summary.md"), datetime(2025, 12, 11, tzinfo=UTC), 9, ["milk"]),
    ]  # fmt: skip
    seeded: dict[str, list[str]] = {"nodes": [], "edges": []}
    for group, name, content, when, number, entities in episodes:
        ids = await add_legacy_episode(
            backend, group, name=name, content=content, valid_at=when, uuid=ep(number), entities=entities
        )
        seeded["nodes"] += ids["nodes"]
        seeded["edges"] += ids["edges"]
    other = await add_legacy_episode(
        backend,
        GROUP,
        name="Standup notes",
        content="**Objective**: not a handoff",
        valid_at=datetime(2025, 12, 1, tzinfo=UTC),
        uuid=ep(99),
        description="chat transcript",
    )
    seeded["nodes"] += other["nodes"]
    return seeded


async def session(backend: Backend, group: str, session_id: str) -> dict[str, Any]:
    driver = await backend.driver_for(group)
    rows, _, _ = await driver.execute_query(
        "MATCH (s:Entity {uuid: $uuid}) RETURN properties(s) AS props",
        uuid=entity_uuid(group, Label.SESSION, session_id),
    )
    assert len(rows) == 1, f"no session {session_id} in {group}"
    props: dict[str, Any] = rows[0]["props"]
    return props


async def relations(backend: Backend, group: str, session_id: str) -> list[tuple[str, str]]:
    driver = await backend.driver_for(group)
    rows, _, _ = await driver.execute_query(
        "MATCH (s:Entity {uuid: $uuid})-[r:RELATES_TO]->(t:Entity) RETURN r.name AS rel, t.name AS target",
        uuid=entity_uuid(group, Label.SESSION, session_id),
    )
    return sorted((r["rel"], r["target"]) for r in rows)


async def test_migrate_from_graph_keeps_old_data_and_is_idempotent(backend: Backend) -> None:
    # A session ingested by this tool in the same group: migration must not take it for legacy.
    await SessionGraphWriter(backend).ingest(
        extract_summary(read_transcript(TRANSCRIPTS / "hello-world-script.jsonl")), group_id=GROUP
    )
    seeded = await seed_legacy_graph(backend)
    before = await dump_database(backend)

    report = await migrate_legacy(backend, from_graph=True)

    assert report.sources_seen == 7  # not the standup notes, not the new-format episode
    assert sorted(f["source"] for f in report.failed) == [f"episode {ep(6)}", f"episode {ep(9)}"]
    errors = {f["source"]: f["error"] for f in report.failed}
    assert errors[f"episode {ep(6)}"].startswith(f"episode {ep(6)}:5: invalid YAML front matter")
    assert errors[f"episode {ep(9)}"].startswith(f"episode {ep(9)}:1: not a legacy session summary")
    statuses = {s["source"]: (s["status"], s["group_id"]) for s in report.sessions}
    assert statuses == {
        f"episode {ep(1)}": ("created", GROUP),
        f"episode {ep(2)}": ("created", GROUP),
        f"episode {ep(3)}": ("superseded", GROUP),  # an older handoff of the same session
        f"episode {ep(4)}": ("created", GROUP),
        f"episode {ep(5)}": ("created", HOST_TARGET),
    }
    assert (report.ingested, report.skipped) == (4, 1)
    assert report.nodes_written > 0 and report.edges_written > report.nodes_written

    after = await dump_database(backend)
    # Nothing that existed changed: the old episodes, entities, facts and MENTIONS byte for byte,
    # and the session ingested before.
    assert legacy_part(after, seeded) == legacy_part(before, seeded)
    assert len(legacy_part(before, seeded)["edges"]) == len(seeded["edges"]) == 11  # 8 MENTIONS, 3 facts
    for key, node in before["nodes"].items():
        if "GraphitiSessionsLock" in node["labels"]:  # counts the writes to its group
            continue
        now = after["nodes"][key]
        if "Episodic" in node["labels"] and now != node:
            # The session ingested before now CONTINUES an older migrated one: its episode lists
            # that one more edge, and nothing else of it changed.
            old_edges, new_edges = (ast.literal_eval(n["props"]["entity_edges"]) for n in (node, now))
            assert new_edges[: len(old_edges)] == old_edges and len(new_edges) == len(old_edges) + 1
            now = {**now, "props": {**now["props"], "entity_edges": node["props"]["entity_edges"]}}
        assert now == node, key
    for key, edge in before["edges"].items():
        assert after["edges"][key] == edge, key

    jwt = await session(backend, GROUP, JWT_SESSION)
    assert jwt["objective"] == "Fix JWT expiry handling in the auth middleware"
    assert jwt["duration_minutes"] == 120 and jwt["message_count"] == 47
    assert jwt["project_path"] == "/home/user/my-project"
    assert jwt["outcome"] == "in_progress"
    assert ("COMPLETED_TASK", "Added a regression test") in await relations(backend, GROUP, JWT_SESSION)
    jwt_relations = await relations(backend, GROUP, JWT_SESSION)
    assert ("REFERENCED_DOC", "docs/auth.md") in jwt_relations
    assert ("MODIFIED_FILE", "src/auth/jwt.py") in jwt_relations
    assert ("MADE_DECISION", "Use seconds everywhere for expiry values") in jwt_relations
    driver = await backend.driver_for(GROUP)
    rows, _, _ = await driver.execute_query(
        "MATCH (d:Entity:Decision) WHERE d.group_id = $g RETURN d.rationale AS rationale, d.decision AS decision",
        g=GROUP,
    )
    assert {r["decision"]: r["rationale"] for r in rows}["Use seconds everywhere for expiry values"] is None
    episodes, _, _ = await driver.execute_query(
        "MATCH (e:Episodic) WHERE e.group_id = $g AND e.source = 'json' RETURN e.content AS content", g=GROUP
    )
    contents = [json.loads(r["content"]) for r in episodes]
    migrated = next(c for c in contents if c["session_id"] == JWT_SESSION)
    assert migrated["metadata"]["legacy_episode_uuid"] == ep(4)
    assert migrated["metadata"]["token_count"] == 48210

    ci = next(s for s in report.sessions if s["source"] == f"episode {ep(1)}")
    assert ("PLANNED_NEXT", "Blocked: Self-hosted runner has no Docker") in await relations(
        backend, GROUP, ci["session_id"]
    )
    translated = next(s for s in report.sessions if s["source"] == f"episode {ep(5)}")
    props = await session(backend, HOST_TARGET, translated["session_id"])
    assert props["objective"].endswith("(エラーメッセージ) ✅")
    assert HOST_TARGET in await backend.list_groups()

    second = await migrate_legacy(backend, from_graph=True)
    assert (second.ingested, second.skipped, second.nodes_written, second.edges_written) == (0, 5, 0, 0)
    assert len(second.failed) == 2
    assert await dump_database(backend) == after


async def test_migrate_files_on_both_backends(backend: Backend) -> None:
    files = [LEGACY / "exported.json", LEGACY / "exported.jsonl", LEGACY / "s003-minimal.md"]
    report = await migrate_legacy(backend, files)

    assert report.sources_seen == 7
    jsonl = (LEGACY / "exported.jsonl").resolve()
    assert [f["source"] for f in report.failed] == [f"{jsonl}:4", f"{jsonl}:5"]
    assert report.failed[0]["error"] == f"{jsonl}:4: invalid JSON: Expecting value"
    assert "next_steps: Field required" in report.failed[1]["error"]
    assert report.ingested == 5 and {s["group_id"] for s in report.sessions} == {"legacy_import"}
    assert f"{jsonl}:6: unreadable duration 'a few minutes', kept as text" in report.problems

    rows, _, _ = await (await backend.driver_for("legacy_import")).execute_query(
        "MATCH (s:Entity:Session) RETURN s.objective AS objective, s.duration_minutes AS minutes, "
        "s.outcome AS outcome ORDER BY objective"
    )
    by_objective = {r["objective"]: r for r in rows}
    assert by_objective["Add rate limiting to the public API"]["minutes"] == 90
    assert by_objective["Write the onboarding guide"]["outcome"] == "blocked"
    assert by_objective["Upgrade Django to 5.1"]["minutes"] == 30
    assert "Investigate flaky CI" in by_objective

    state = await dump_database(backend)
    text = json.dumps(state, ensure_ascii=False)
    assert "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789" not in text  # redacted before the graph
    assert "[REDACTED:" in text and "Ünïcödé" in text

    second = await migrate_legacy(backend, files)
    assert (second.ingested, second.skipped, len(second.failed)) == (0, 5, 2)
    assert await dump_database(backend) == state


async def test_dry_run_reads_and_converts_but_writes_nothing(backend: Backend) -> None:
    await seed_legacy_graph(backend)
    before = await dump_database(backend)
    report = await migrate_legacy(backend, [LEGACY / "exported.json"], from_graph=True, dry_run=True)
    assert report.dry_run and report.ingested == 0 and report.nodes_written == 0
    assert sorted(s["status"] for s in report.sessions) == ["dry-run"] * 5 + ["superseded"]
    assert await dump_database(backend) == before


async def test_group_id_puts_everything_in_one_group(backend: Backend) -> None:
    await seed_legacy_graph(backend)
    report = await migrate_legacy(
        backend, [LEGACY / "exported.json"], from_graph=True, group_id="team_sessions"
    )
    assert {s["group_id"] for s in report.sessions} == {"team_sessions"}
    await session(backend, "team_sessions", JWT_SESSION)


async def test_missing_file_and_no_backend() -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        await migrate_legacy(None, [LEGACY / "nope.jsonl"], dry_run=True)
    with pytest.raises(ValueError, match="backend"):
        await migrate_legacy(None, [LEGACY / "exported.json"])
    report = await migrate_legacy(None, [LEGACY], dry_run=True)  # a folder: its .json and .jsonl
    assert report.sources_seen == 8 and len(report.sessions) == 6  # gen1/ and gen2/ hold an export each


def test_json_loader_reports_each_bad_line_and_reads_the_rest() -> None:
    good = b'{"objective": "o", "completed_tasks": [], "next_steps": [], "key_decisions": []}'
    data = (
        b"\xef\xbb\xbf"
        + good
        + b"\r\n\n[1, 2]\n\xff\xfe\n"
        + good
        + b"\n"
        + good.replace(b'"o"', b'"\\ud800"')
    )
    records, errors = parse_json_records(data, "x.jsonl", lines=True)
    assert [r.source for r in records] == ["x.jsonl:1", "x.jsonl:5"]
    assert [str(e) for e in errors] == [
        "x.jsonl:3: expected a SessionSummarySchema object, got a JSON list",
        "x.jsonl:4: invalid UTF-8",
        "x.jsonl:6: invalid text: a lone UTF-16 surrogate escape",
    ]
    records, errors = parse_json_records(b'\n\n  {\n  "objective": 1\n}', "y.json", lines=False)
    assert records == [] and str(errors[0]).startswith("y.json:3: not a legacy session summary")
    records, errors = parse_json_records(b'{\n"a": \n}', "z.json", lines=False)
    assert str(errors[0]) == "z.json:3: invalid JSON: Expecting value"
    _, errors = parse_json_records(b"[" * 100_000, "deep.json", lines=False)
    assert str(errors[0]).startswith("deep.json:1: invalid JSON")


_ERROR = re.compile(r"^(?P<source>f\.jsonl?):(?P<line>\d+): \S")
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=12,
)
_summary_like = st.fixed_dictionaries(
    {"objective": st.text(max_size=20), "completed_tasks": st.lists(st.text(max_size=10), max_size=3)},
    optional={
        "next_steps": st.lists(st.text(max_size=10)) | _json_values,
        "key_decisions": st.lists(st.text(max_size=10)) | _json_values,
        "token_count": st.integers() | st.none() | st.text(max_size=6),
        "duration_estimate": st.text(max_size=12) | st.none(),
    },
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.one_of(
        st.binary(max_size=400),
        st.lists(
            st.one_of(_summary_like.map(json.dumps), _json_values.map(json.dumps), st.text(max_size=30)),
            max_size=8,
        ).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")),
    ),
    st.booleans(),
)
def test_fuzz_json_loader_raises_nothing_and_names_source_and_line(data: bytes, lines: bool) -> None:
    source = "f.jsonl" if lines else "f.json"
    records, errors = parse_json_records(data, source, lines=lines)
    line_count = data.count(b"\n") + 1
    for error in errors:
        assert isinstance(error, LegacyFormatError)
        match = _ERROR.match(str(error))
        assert match is not None and match.group("source") == source, str(error)
        assert 1 <= int(match.group("line")) <= line_count
    for record in records:
        assert re.fullmatch(rf"{re.escape(source)}:\d+", record.source)
    if lines:  # one record or one error for every line that is not blank
        raws = [raw.removesuffix(b"\r") for raw in data.removeprefix(b"\xef\xbb\xbf").split(b"\n")]
        assert len(records) + len(errors) == sum(1 for raw in raws if raw.strip())


async def test_folder_of_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.jsonl").write_bytes((LEGACY / "exported.jsonl").read_bytes())
    (tmp_path / "notes.md").write_text("# not read from a folder\n")
    report = await migrate_legacy(None, [tmp_path], dry_run=True)
    assert report.sources_seen == 5 and len(report.failed) == 2
