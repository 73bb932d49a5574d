"""Backends: FalkorDB Lite lifecycle and durability across processes; Neo4j errors."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import msgspec
import psutil
import pytest

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import BackendError, open_backend
from graphiti_session_tracking.graph.falkordblite import KEEPER_MODULE


def redis_servers_for(db_path: Path) -> list[psutil.Process]:
    """redis-server processes serving this database file (redis works in the file's folder)."""
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            if "redis-server" in (proc.info["name"] or "") and proc.cwd() == str(db_path.parent):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def servers_left(db_path: Path, wait_s: float = 15.0) -> list[psutil.Process]:
    """The file's servers and keepers still running once the idle period (0 in tests) has passed."""
    deadline = time.monotonic() + wait_s
    while True:
        found = redis_servers_for(db_path) + keepers_for(db_path)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def keepers_for(db_path: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        command = proc.info["cmdline"] or []
        if KEEPER_MODULE in command and str(db_path) in command:
            found.append(proc)
    return found


def idle(seconds: float) -> dict[str, str]:
    """The environment of a process whose database server stays `seconds` after its last user."""
    return {**os.environ, "GRAPHITI_SESSIONS_SERVER_IDLE_S": str(seconds)}


def script_for(code: str, db: Path) -> str:
    return textwrap.dedent(
        f"""
        import asyncio, sys
        from graphiti_session_tracking.config import GraphConfig
        from graphiti_session_tracking.graph.backends import open_backend
        config = GraphConfig(backend="falkordblite", db_path={str(db)!r})
        """
    ) + textwrap.dedent(code)


def run_script(
    code: str, db: Path, check: bool = True, env: dict[str, str] | None = None, args: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script_for(code, db), *(args or [])],
        capture_output=True,
        text=True,
        check=check,
        timeout=120,
        env=env,
    )


WRITE = """
async def main():
    async with open_backend(config) as backend:
        driver = await backend.driver_for("proj_a")
        await driver.execute_query("CREATE (:Marker {value: $v})", v=int(sys.argv[1]) if len(sys.argv) > 1 else 7)
        {after}
asyncio.run(main())
"""

READ = """
async def main():
    async with open_backend(config, writable=False) as backend:
        driver = await backend.driver_for("proj_a")
        records, _, _ = await driver.execute_query("MATCH (m:Marker) RETURN m.value AS v ORDER BY v")
        print([r["v"] for r in records])
asyncio.run(main())
"""


def test_write_is_durable_for_the_next_process_and_no_server_is_left(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db)
    assert servers_left(db) == []
    out = run_script(READ, db)
    assert out.stdout.strip() == "[7]"
    assert servers_left(db) == []


def test_error_exit_keeps_what_was_written_and_stops_the_server(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    failed = run_script(WRITE.replace("{after}", "raise RuntimeError('boom')"), db, check=False)
    assert failed.returncode != 0 and "boom" in failed.stderr
    assert servers_left(db) == []
    assert run_script(READ, db).stdout.strip() == "[7]"


def test_kill_9_keeps_writes_and_the_server_serves_the_next_process(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    code = WRITE.replace("{after}", "print('written', flush=True); await asyncio.sleep(60)")
    proc = subprocess.Popen(
        [sys.executable, "-c", script_for(code, db)], stdout=subprocess.PIPE, text=True, env=idle(2)
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "written"
    server = redis_servers_for(db)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # The server is the file's, not the killed program's: it answers the next process, whose
    # write lock the kill released.
    assert run_script(WRITE.replace("{after}", "pass"), db, env=idle(2), args=["8"]).returncode == 0
    assert run_script(READ, db).stdout.strip() == "[7, 8]"
    assert redis_servers_for(db) == server and len(server) == 1
    assert servers_left(db) == []


def test_sigterm_closes_the_backend(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    script = textwrap.dedent(
        f"""
        import asyncio, signal
        from graphiti_session_tracking.cli.app import _stop_on_signal
        from graphiti_session_tracking.cli.shell import run as _run
        signal.signal(signal.SIGTERM, _stop_on_signal)
        from graphiti_session_tracking.config import GraphConfig
        from graphiti_session_tracking.graph.backends import open_backend
        async def main():
            async with open_backend(GraphConfig(backend="falkordblite", db_path={str(db)!r})):
                print("open", flush=True)
                await asyncio.sleep(60)
        _run(main())
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "open"
    assert len(redis_servers_for(db)) == 1
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    assert servers_left(db) == []


async def test_processes_share_one_server_and_writers_take_turns(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
        driver = await backend.driver_for("proj_a")
        await driver.execute_query("CREATE (:Marker {value: 7})")
        server = redis_servers_for(db)
        # A reader in another process is answered at once, by the same server.
        started = time.monotonic()
        assert run_script(READ, db).stdout.strip() == "[7]"
        assert time.monotonic() - started < 20
        # A second writer waits for the first; here it gives up after half a second and says so.
        blocked = run_script(
            "from graphiti_session_tracking.graph import falkordblite\nfalkordblite.WRITE_WAIT_S = 0.5\n"
            + WRITE.replace("{after}", "pass"),
            db,
            check=False,
        )
        assert blocked.returncode != 0
        assert "is being written by another graphiti-sessions process (waited 0s)" in blocked.stderr
        assert redis_servers_for(db) == server and len(server) == 1
    assert run_script(READ, db).stdout.strip() == "[7]"
    assert servers_left(db) == []


def test_the_server_stays_for_its_idle_period_then_stops(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db, env=idle(3))
    first = redis_servers_for(db)
    assert len(first) == 1  # kept for the next command
    assert run_script(READ, db, env=idle(3)).stdout.strip() == "[7]"
    assert redis_servers_for(db) == first  # which used it, with no start of its own
    assert servers_left(db, wait_s=30) == []
    assert not (tmp_path / "g.falkordb.server").exists()
    assert run_script(READ, db).stdout.strip() == "[7]"  # saved and started again


@pytest.mark.parametrize("killed", ["keeper", "server", "both"])
def test_a_crashed_server_or_keeper_is_cleaned_up_by_the_next_process(tmp_path: Path, killed: str) -> None:
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db, env=idle(60))
    record = json.loads((tmp_path / "g.falkordb.server").read_text())
    for name in ("keeper", "pid") if killed == "both" else ("keeper",) if killed == "keeper" else ("pid",):
        os.kill(record[name], signal.SIGKILL)
    assert run_script(READ, db).stdout.strip() == "[7]"
    assert servers_left(db) == []
    assert not psutil.pid_exists(record["pid"]) or psutil.Process(record["pid"]).status() == "zombie"


def test_a_recorded_server_whose_folder_others_can_enter_is_not_used(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db, env=idle(60))
    record = json.loads((tmp_path / "g.falkordb.server").read_text())
    os.chmod(record["workdir"], 0o755)
    assert run_script(READ, db).stdout.strip() == "[7]"
    assert not psutil.pid_exists(record["pid"]) or psutil.Process(record["pid"]).status() == "zombie"
    assert servers_left(db) == []


async def test_groups_are_separate_graphs_on_falkordb(falkordb_config: GraphConfig) -> None:
    async with open_backend(falkordb_config) as backend:
        for group in ("alpha", "beta"):
            driver = await backend.driver_for(group)
            await driver.execute_query("CREATE (:Marker {g: $g})", g=group)
        assert {"alpha", "beta"} <= set(await backend.list_groups())
        alpha = await backend.driver_for("alpha")
        records, _, _ = await alpha.execute_query("MATCH (m:Marker) RETURN m.g AS g")
        assert [r["g"] for r in records] == ["alpha"]


async def test_unreachable_neo4j_names_the_uri() -> None:
    config = GraphConfig(backend="neo4j", uri="bolt://127.0.0.1:1", password="x", connect_timeout_s=5)
    with pytest.raises(BackendError, match=r"cannot reach Neo4j at bolt://127\.0\.0\.1:1"):
        async with open_backend(config):
            pass


async def test_wrong_neo4j_password_is_a_backend_error(neo4j_config: GraphConfig) -> None:
    config = msgspec.structs.replace(neo4j_config, password="wrong-password")
    with pytest.raises(BackendError, match="cannot reach Neo4j"):
        async with open_backend(config):
            pass


async def test_neo4j_backend_builds_graphiti_indices(neo4j_config: GraphConfig) -> None:
    async with open_backend(neo4j_config) as backend:
        records, _, _ = await backend.driver.execute_query(
            "SHOW INDEXES YIELD name RETURN collect(name) AS names"
        )
        names = records[0]["names"]
        assert "node_name_and_summary" in names and "episode_content" in names


def test_a_server_whose_folder_was_removed_stops_with_its_keeper(tmp_path: Path) -> None:
    db = tmp_path / "gone" / "g.falkordb"
    db.parent.mkdir()
    run_script(WRITE.replace("{after}", "pass"), db, env=idle(1))
    record = json.loads((db.parent / "g.falkordb.server").read_text())
    shutil.rmtree(db.parent)  # a temporary folder cleaned up while the server idles
    deadline = time.monotonic() + 20
    while any(psutil.pid_exists(record[k]) for k in ("pid", "keeper")) and time.monotonic() < deadline:
        time.sleep(0.1)
    for key in ("pid", "keeper"):
        assert not psutil.pid_exists(record[key]) or psutil.Process(record[key]).status() == "zombie"


def test_a_server_whose_opener_left_while_it_loaded_is_kept_then_stopped(tmp_path: Path) -> None:
    """Ctrl-C while a large file loads: the opener is gone before the keeper says `ready`."""
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db)
    assert servers_left(db) == []
    keeper = subprocess.Popen(
        [sys.executable, "-m", KEEPER_MODULE, str(db), "--idle", "1"],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert keeper.stdout is not None
    keeper.stdout.close()  # nobody will read its `ready`
    deadline = time.monotonic() + 30
    while not (tmp_path / "g.falkordb.server").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run_script(READ, db).stdout.strip() == "[7]"  # the next process uses that server
    assert servers_left(db, wait_s=30) == []  # and it stops after its idle period, record and all
    assert not (tmp_path / "g.falkordb.server").exists()
    assert keeper.wait(timeout=10) == 0
