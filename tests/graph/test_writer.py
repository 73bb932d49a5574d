"""The first slice on both backends: Session, File, MODIFIED_FILE, the episode and MENTIONS."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import TRANSCRIPTS
from fake_openai import FakeOpenAI
from graphiti_core.driver.driver import GraphDriver

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.mapping import map_summary
from graphiti_session_tracking.graph.queries import run_query
from graphiti_session_tracking.graph.schema import Label, entity_uuid
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.summary import extract_summary, summarize_session
from graphiti_session_tracking.transcripts import read_transcript

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"
PORT_FILES = {
    "Cargo.toml",
    "Justfile",
    "src/lib.rs",
    "src/math_utils.rs",
    "src/string_utils.rs",
    "src/list_utils.rs",
    "src/dict_utils.rs",
    "src/validation.rs",
}
# The port's one commit, as git listed it: the Rust files created, the Python files deleted.
COMMITTED = PORT_FILES | {
    "Cargo.lock",
    "pyproject.toml",
    "uv.lock",
    *(
        f"src/{m}.py"
        for m in ("__init__", "dict_utils", "list_utils", "math_utils", "string_utils", "validation")
    ),
    "tests/__init__.py",
    *(f"tests/test_{m}.py" for m in ("dict_utils", "list_utils", "math_utils", "string_utils", "validation")),
}


async def dump(driver: GraphDriver, group_id: str) -> dict[str, Any]:
    """Every node and edge of a group with all properties: the graph's full state."""
    nodes, _, _ = await driver.execute_query(
        "MATCH (n) WHERE n.group_id = $g RETURN n.uuid AS uuid, labels(n) AS labels, properties(n) AS props",
        g=group_id,
    )
    edges, _, _ = await driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE r.group_id = $g "
        "RETURN r.uuid AS uuid, type(r) AS type, a.uuid AS src, b.uuid AS dst, properties(r) AS props",
        g=group_id,
    )
    return {
        "nodes": sorted(
            (
                {
                    "uuid": r["uuid"],
                    "labels": sorted(r["labels"]),
                    "props": {k: str(v) for k, v in r["props"].items()},
                }
                for r in nodes
            ),
            key=lambda x: x["uuid"],
        ),
        "edges": sorted(
            (
                {
                    "uuid": r["uuid"],
                    "type": r["type"],
                    "src": r["src"],
                    "dst": r["dst"],
                    "props": {k: str(v) for k, v in r["props"].items()},
                }
                for r in edges
            ),
            key=lambda x: x["uuid"],
        ),
    }


async def test_full_session_graph_lands_as_the_contract_says(backend: Backend) -> None:
    summary = await summarize_session(read_transcript(PORT))
    result = await SessionGraphWriter(backend).ingest(summary)
    group = GroupId.for_project("/tmp/tmpqwh7888i")
    assert result.group_id == group and result.status == "created"
    driver = await backend.driver_for(group)
    state = await dump(driver, group)

    tools = {t.name for t in summary.tools_used or []}
    assert tools == {"Bash", "Edit", "Glob", "Read", "Task", "TodoWrite", "Write"}
    labels = Counter(next((x for x in n["labels"] if x != "Entity"), "") for n in state["nodes"])
    assert all("Entity" in n["labels"] for n in state["nodes"] if n["labels"] != ["Episodic"])
    assert labels == {
        "Episodic": 1,
        "Session": 1,
        "File": len(COMMITTED),
        "Commit": 1,
        "Task": 9,
        "ConfigChange": 1,
        "Decision": 1,
        "TestRun": 1,
        "Tool": len(tools),
    }
    files = {n["props"]["path"] for n in state["nodes"] if "File" in n["labels"]}
    assert files == COMMITTED

    session_uuid = entity_uuid(group, Label.SESSION, summary.session_id)
    relates = Counter(e["props"]["name"] for e in state["edges"] if e["type"] == "RELATES_TO")
    assert relates == {
        "MODIFIED_FILE": len(PORT_FILES),
        "COMPLETED_TASK": 9,
        "USED_TOOL": len(tools),
        "CHANGED_CONFIG": 1,
        "CONFIG_IN_FILE": 1,
        "MADE_DECISION": 1,
        "RAN_TESTS": 1,
        "MADE_COMMIT": 1,
        "COMMITTED_FILE": len(COMMITTED),
    }
    by_name = {e["props"]["name"]: e for e in state["edges"] if e["type"] == "RELATES_TO"}
    config_uuid = entity_uuid(
        group, Label.CONFIG_CHANGE, f"{summary.session_id}\x1fCargo.toml\x1flints.rust.missing_docs"
    )
    assert by_name["CONFIG_IN_FILE"]["src"] == config_uuid
    assert by_name["CONFIG_IN_FILE"]["dst"] == entity_uuid(group, Label.FILE, "Cargo.toml")
    assert by_name["CHANGED_CONFIG"]["props"]["fact"] == (
        "Session c7d3d95c changed lints.rust.missing_docs in Cargo.toml from (unset) to warn"
    )
    assert by_name["MADE_DECISION"]["props"]["fact"].startswith("Session c7d3d95c decided: Used Result<T, E>")
    assert by_name["RAN_TESTS"]["props"]["fact"] == "Session c7d3d95c ran cargo: 29/29 passed"
    for edge in state["edges"]:
        if edge["type"] == "RELATES_TO" and edge["props"]["name"] not in ("CONFIG_IN_FILE", "COMMITTED_FILE"):
            assert edge["src"] == session_uuid
    mentions = [e for e in state["edges"] if e["type"] == "MENTIONS"]
    assert len(mentions) == len(state["nodes"]) - 1  # the episode mentions every entity it produced

    episode = next(n for n in state["nodes"] if n["labels"] == ["Episodic"])
    assert episode["props"]["source"] == "json"
    assert episode["props"]["source_description"] == "graphiti-sessions summary"
    assert episode["props"]["name"].startswith("Session c7d3d95c: Port this Python project to Rust")

    session = next(n for n in state["nodes"] if "Session" in n["labels"])
    assert session["props"]["session_id"] == summary.session_id
    assert session["props"]["summary_version"] == "1"
    assert session["props"]["project_path"] == "/tmp/tmpqwh7888i"
    test_run = next(n for n in state["nodes"] if "TestRun" in n["labels"])
    assert test_run["props"]["name"] == "cargo: 29/29 passed" and test_run["props"]["coverage_pct"] == "100.0"


async def test_uuids_are_deterministic_and_reingest_changes_nothing(backend: Backend) -> None:
    summary = extract_summary(read_transcript(PORT))
    writer = SessionGraphWriter(backend)
    first = await writer.ingest(summary)
    driver = await backend.driver_for(first.group_id)
    before = await dump(driver, first.group_id)
    for _ in range(3):
        again = await writer.ingest(extract_summary(read_transcript(PORT)))
        assert again.status == "unchanged" and again.nodes_written == 0
    assert await dump(driver, first.group_id) == before
    expected = map_summary(summary, first.group_id)
    assert {n["uuid"] for n in before["nodes"]} == {
        expected.episode.uuid,
        expected.session_node.uuid,
        *(e.uuid for e in expected.entities),
    }


async def test_changed_summary_replaces_and_keeps_shared_files(backend: Backend) -> None:
    summary = extract_summary(read_transcript(PORT))
    writer = SessionGraphWriter(backend)
    first = await writer.ingest(summary)
    fewer = summary.model_copy(update={"files_modified": ["Cargo.toml", "src/lib.rs"], "commits": None})
    replaced = await writer.ingest(fewer)
    assert replaced.status == "replaced" and replaced.summary_version == 2
    driver = await backend.driver_for(first.group_id)
    state = await dump(driver, first.group_id)
    modified = [
        e for e in state["edges"] if e["type"] == "RELATES_TO" and e["props"]["name"] == "MODIFIED_FILE"
    ]
    assert len(modified) == 2
    mentioned_files = [
        e
        for e in state["edges"]
        if e["type"] == "MENTIONS"
        and e["dst"] in {n["uuid"] for n in state["nodes"] if "File" in n["labels"]}
    ]
    assert len(mentioned_files) == 2  # Cargo.toml (modified and its config) and src/lib.rs
    # File nodes are shared by the group's sessions: kept, only the session's links go.
    assert sum("File" in n["labels"] for n in state["nodes"]) == len(COMMITTED)


async def test_query_files_covers_every_group_or_one(backend: Backend) -> None:
    writer = SessionGraphWriter(backend)
    for transcript in sorted(TRANSCRIPTS.glob("*.jsonl")):
        await writer.ingest(extract_summary(read_transcript(transcript)))
    rows = await run_query(backend, "files")
    hello = GroupId.for_project("/tmp/tmp74wiyiny")
    assert {r["path"] for r in rows} >= PORT_FILES | {"hello.sh", "src/main.py", "test.txt"}
    assert len({r["group_id"] for r in rows}) == 5
    assert all(r["sessions"] == 1 and r["last_modified_at"].startswith("2026-01-21T") for r in rows)
    one = await run_query(backend, "files", group_id=hello)
    assert one == [
        {
            "path": "hello.sh",
            "group_id": hello,
            "sessions": 1,
            "last_modified_at": "2026-01-21T06:20:44.516000+00:00",
        }
    ]


async def test_graphiti_reads_the_records_with_its_own_models(backend: Backend) -> None:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    summary = extract_summary(read_transcript(PORT))
    result = await SessionGraphWriter(backend).ingest(summary)
    driver = await backend.driver_for(result.group_id)
    expected = map_summary(summary, result.group_id)

    episode = await EpisodicNode.get_by_uuid(driver, expected.episode.uuid)
    assert episode.content == summary.model_dump_json(exclude_none=True)
    assert episode.valid_at == summary.ended_at
    session = await EntityNode.get_by_uuid(driver, expected.session_node.uuid)
    assert "Session" in session.labels and session.attributes["outcome"] == summary.outcome
    edge = await EntityEdge.get_by_uuid(driver, expected.edges[0].uuid)
    assert edge.name == "MODIFIED_FILE" and edge.episodes == [expected.episode.uuid]
    by_episode = await EntityEdge.get_by_uuids(driver, episode.entity_edges)
    # 8 files, 9 tasks, config (2), decision, tests, the commit and its 23 files
    assert len(by_episode) == len(expected.edges) == 21 + 1 + len(COMMITTED)


async def test_session_node_carries_the_activity_vector(backend: Backend) -> None:
    from graphiti_core.nodes import EntityNode

    from graphiti_session_tracking.summary import summarize_session

    summary = await summarize_session(read_transcript(TRANSCRIPTS / "coverage-test-fix.jsonl"))
    assert summary.activity_vector.primary_activity in {"testing", "building"}
    result = await SessionGraphWriter(backend).ingest(summary)
    driver = await backend.driver_for(result.group_id)
    node = await EntityNode.get_by_uuid(
        driver, entity_uuid(result.group_id, Label.SESSION, summary.session_id)
    )
    assert node.attributes["primary_activity"] == summary.activity_vector.primary_activity
    for dim, value in summary.activity_vector.to_dict().items():
        assert node.attributes[f"activity_{dim}"] == value


async def test_sessions_of_a_project_continue_each_other_by_time(backend: Backend) -> None:
    from datetime import timedelta

    base = extract_summary(read_transcript(TRANSCRIPTS / "hello-world-script.jsonl"))
    assert base.started_at is not None and base.ended_at is not None
    later = base.model_copy(
        update={
            "session_id": "later-session",
            "started_at": base.started_at + timedelta(days=1),
            "ended_at": base.ended_at + timedelta(days=1),
        }
    )
    writer = SessionGraphWriter(backend)
    first = await writer.ingest(base)
    await writer.ingest(later)
    driver = await backend.driver_for(first.group_id)
    records, _, _ = await driver.execute_query(
        "MATCH (a:Entity:Session)-[r:RELATES_TO]->(b:Entity:Session) WHERE r.name = 'CONTINUES' "
        "RETURN a.session_id AS later, b.session_id AS earlier"
    )
    assert [(r["later"], r["earlier"]) for r in records] == [("later-session", base.session_id)]


async def test_any_order_of_ingest_builds_the_same_chain(backend: Backend) -> None:
    """A session ingested after its successor (a watcher summarizes whatever is due first) slots
    into the chain: the graph equals the one an in-order ingest builds, edge lists included."""
    from datetime import timedelta

    base = extract_summary(read_transcript(TRANSCRIPTS / "hello-world-script.jsonl"))
    assert base.started_at is not None and base.ended_at is not None
    sessions = [
        base.model_copy(
            update={
                "session_id": f"chain-{i}",
                "started_at": base.started_at + timedelta(days=i),
                "ended_at": base.ended_at + timedelta(days=i),
            }
        )
        for i in range(5)
    ]
    writer = SessionGraphWriter(backend)
    group = (await writer.ingest_many(sessions))[0].group_id
    driver = await backend.driver_for(group)
    in_order = await dump(driver, group)
    chain = await driver.execute_query(
        "MATCH (a:Entity:Session)-[r:RELATES_TO]->(b:Entity:Session) WHERE r.name = 'CONTINUES' "
        "RETURN a.session_id AS later, b.session_id AS earlier ORDER BY later"
    )
    assert [(r["later"], r["earlier"]) for r in chain[0]] == [
        (f"chain-{i}", f"chain-{i - 1}") for i in range(1, 5)
    ]
    for order in ([4, 3, 2, 1, 0], [0, 4, 2], [2, 0, 1, 3, 4]):
        await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
        for batch in ([sessions[i]] for i in order):
            await writer.ingest_many(batch)
        rest = [s for i, s in enumerate(sessions) if i not in order]
        if rest:
            await writer.ingest_many(rest)  # several at once, around stored ones
        assert await dump(driver, group) == in_order, order


async def test_embeddings_written_in_one_request_per_batch(backend: Backend, fake_openai: FakeOpenAI) -> None:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.nodes import EntityNode

    embedder = OpenAIEmbedder(
        OpenAIEmbedderConfig(api_key="k", base_url=fake_openai.base_url, embedding_dim=16)
    )
    summaries = [extract_summary(read_transcript(t)) for t in sorted(TRANSCRIPTS.glob("*.jsonl"))]
    results = await SessionGraphWriter(backend, embedder=embedder).ingest_many(summaries)
    assert all(r.status == "created" for r in results)
    assert len(fake_openai.calls("/embeddings")) == len({r.group_id for r in results})  # one per batch
    port = next(s for s in summaries if s.session_id.startswith("c7d3d95c"))
    group = next(r.group_id for r in results if r.session_id == port.session_id)
    driver = await backend.driver_for(group)
    graph = map_summary(port, group)
    node = await EntityNode.get_by_uuid(driver, graph.session_node.uuid)
    await node.load_name_embedding(driver)
    assert node.name_embedding is not None and len(node.name_embedding) == 16
    edge = await EntityEdge.get_by_uuid(driver, graph.edges[0].uuid)
    await edge.load_fact_embedding(driver)
    assert edge.fact_embedding is not None and len(edge.fact_embedding) == 16


async def test_many_sessions_in_one_batch_equal_one_by_one(backend: Backend) -> None:
    summaries = [extract_summary(read_transcript(t)) for t in sorted(TRANSCRIPTS.glob("*.jsonl"))]
    writer = SessionGraphWriter(backend)
    batched = await writer.ingest_many(summaries)
    states = {}
    for result in batched:
        driver = await backend.driver_for(result.group_id)
        states[result.group_id] = await dump(driver, result.group_id)
        await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=result.group_id)
    for summary in summaries:
        await writer.ingest(summary)
    for group, state in states.items():
        assert await dump(await backend.driver_for(group), group) == state


async def test_a_batch_stops_at_its_records_and_writes_the_same_graph(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graph.test_history import SESSIONS

    from graphiti_session_tracking.graph import writer as writer_module

    writer = SessionGraphWriter(backend)
    whole: list[list[int]] = []
    group = (await writer.ingest_many(SESSIONS, on_batch=lambda b: whole.append([i for i, _ in b])))[
        0
    ].group_id
    driver = await backend.driver_for(group)
    in_one = await dump(driver, group)
    await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)

    monkeypatch.setattr(writer_module, "BATCH_RECORDS", 4)  # each session counts 2 or 3 records
    parts: list[list[int]] = []
    await writer.ingest_many(SESSIONS, on_batch=lambda b: parts.append([i for i, _ in b]))

    assert whole == [[0, 1, 2, 3, 4]]
    assert len(parts) > 2 and sorted(i for part in parts for i in part) == [0, 1, 2, 3, 4]
    assert await dump(driver, group) == in_one


async def test_a_failure_mid_statement_leaves_no_partial_session(backend: Backend) -> None:
    good = extract_summary(read_transcript(TRANSCRIPTS / "hello-world-script.jsonl"))
    bad = good.model_copy(update={"session_id": "bad-session", "discoveries": ["boom"]})
    writer = SessionGraphWriter(backend)
    original = writer._params

    async def poisoned(batch):  # type: ignore[no-untyped-def]
        params = await original(batch)
        # A map is not a valid property value: the statement fails at the Discovery section,
        # after the episode, Session and File sections of the same statement already ran.
        params["nodes_Discovery"][0]["props"]["bad"] = {"nested": {"map": 1}}
        return params

    writer._params = poisoned  # type: ignore[method-assign]
    try:
        await writer.ingest_many([good, bad])
    except Exception:
        pass
    else:
        raise AssertionError("the poisoned write should fail")
    group = GroupId.for_project("/tmp/tmp74wiyiny")
    driver = await backend.driver_for(group)
    records, _, _ = await driver.execute_query(
        "MATCH (n) WHERE n.group_id = $g RETURN count(n) AS c", g=group
    )
    assert records[0]["c"] == 0
    writer._params = original  # type: ignore[method-assign]
    results = await writer.ingest_many([good, bad])
    assert [r.status for r in results] == ["created", "created"]


async def test_replacing_a_summary_leaves_no_orphans(backend: Backend) -> None:
    from graphiti_session_tracking.summary import DecisionRecord, ErrorResolution

    base = extract_summary(read_transcript(TRANSCRIPTS / "hello-world-script.jsonl"))
    first = base.model_copy(
        update={
            "key_decisions": [DecisionRecord(decision="Use bash for hello.sh", rationale="simplest")],
            "errors_resolved": [ErrorResolution(error="Permission denied: hello.sh", fix="chmod +x")],
            "discoveries": ["The repo is empty"],
        }
    )
    writer = SessionGraphWriter(backend)
    created = await writer.ingest(first)
    second = base.model_copy(
        update={"key_decisions": [DecisionRecord(decision="Use sh for portability", rationale="POSIX")]}
    )
    replaced = await writer.ingest(second)
    assert replaced.status == "replaced"
    driver = await backend.driver_for(created.group_id)
    state = await dump(driver, created.group_id)
    labels = Counter(next((x for x in n["labels"] if x != "Entity"), "") for n in state["nodes"])
    assert labels["Decision"] == 1 and labels["ErrorResolution"] == 0 and labels["Discovery"] == 0
    names = {n["props"]["name"] for n in state["nodes"]}
    assert "Use sh for portability" in names and "Use bash for hello.sh" not in names
    uuids = {n["uuid"] for n in state["nodes"]}
    assert all(e["src"] in uuids and e["dst"] in uuids for e in state["edges"])
    relations = Counter(e["props"].get("name") for e in state["edges"] if e["type"] == "RELATES_TO")
    assert relations["AFFECTS_FILE"] == 0 and relations["RESOLVED_ERROR"] == 0
    assert relations["MADE_DECISION"] == 1
    # A fresh ingest of the second summary gives the same graph, but for summary_version.
    await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=created.group_id)
    await writer.ingest(second)
    fresh = await dump(driver, created.group_id)
    for s in (state, fresh):
        for n in s["nodes"]:
            n["props"].pop("summary_version", None)
    assert fresh == state
