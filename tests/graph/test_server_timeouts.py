"""A graph server that accepts the connection and never answers: the real CLI gives up after the
configured connection timeout, tried once, with one line naming the server and the timeout."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HELLO = str(Path(__file__).parents[1] / "fixtures" / "claude-code" / "hello-world-script.jsonl")
CLI = str(Path(sys.executable).parent / "graphiti-sessions")


@dataclass
class HangingServer:
    """A TCP port that accepts connections, keeps them open and never writes a byte."""

    port: int
    accepted: list[socket.socket] = field(default_factory=list)


@pytest.fixture
def hanging_server() -> Iterator[HangingServer]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    server = HangingServer(listener.getsockname()[1])
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                server.accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join()
        for conn in server.accepted:
            conn.close()
        listener.close()


@pytest.mark.parametrize(
    ("backend", "scheme", "command"),
    [
        ("falkordb", "redis", ["query", "sessions"]),
        ("falkordb", "redis", ["ingest", "--no-llm", HELLO]),
        ("neo4j", "bolt", ["query", "sessions"]),
        ("neo4j", "neo4j", ["ingest", "--no-llm", HELLO]),
    ],
)
def test_a_server_that_never_answers_is_one_line_naming_it_and_the_timeout(
    tmp_path: Path, hanging_server: HangingServer, backend: str, scheme: str, command: list[str]
) -> None:
    config = tmp_path / "graphiti.config.json"
    config.write_text(json.dumps({"database": {backend: {"connection_timeout": 1}}}))
    uri = f"{scheme}://127.0.0.1:{hanging_server.port}"
    done = subprocess.run(
        [CLI, *command, "--backend", backend, "--uri", uri, "--password", "x", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,  # only a guard against hanging forever; the wait itself is the config's
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    connections = len(hanging_server.accepted)
    assert connections == 1  # it did connect, and did not try again
    name = {"falkordb": "FalkorDB", "neo4j": "Neo4j"}[backend]
    assert done.stderr.strip().splitlines() == [
        f"error: cannot reach {name} at {uri}: timed out after 1 s (database.{backend}.connection_timeout)"
    ]
