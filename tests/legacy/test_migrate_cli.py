"""`graphiti-sessions migrate` as a user runs it: a real process, real backends, exit codes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from conftest import backend_cli_args
from legacy_graph import LEGACY
from test_migrate import HOST_TARGET, JWT_SESSION, ep, seed_legacy_graph

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphiti_session_tracking", "migrate", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_help_has_an_example() -> None:
    result = cli("--help")
    assert result.returncode == 0
    assert "Example:" in result.stdout and "--from-graph" in result.stdout and "--dry-run" in result.stdout


def test_usage_errors_exit_2_with_one_line() -> None:
    for args, message in [
        ((), "error: nothing to migrate"),
        ((str(LEGACY / "missing.jsonl"),), "error: no such file or folder:"),
        ((str(LEGACY / "exported.json"), "--group-id", "my-project"), "invalid group id"),
        (
            ("--from-graph", "--backend", "neo4j", "--uri", "bolt://127.0.0.1:9", "--password", "x"),
            "error: cannot reach Neo4j at bolt://127.0.0.1:9",
        ),
    ]:
        result = cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
        if message.startswith("error:"):
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_files_dry_run_needs_no_backend() -> None:
    result = cli(
        str(LEGACY / "exported.json"),
        "--dry-run",
        "--json",
        "--backend",
        "neo4j",
        "--uri",
        "bolt://127.0.0.1:9",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["dry_run"] and [s["status"] for s in report["sessions"]] == ["dry-run"]


def test_migrate_files_reports_bad_lines_and_exits_1(graph_config: GraphConfig) -> None:
    args = [str(LEGACY / "exported.json"), str(LEGACY / "exported.jsonl"), *backend_cli_args(graph_config)]
    first = cli(*args, "--json")
    assert first.returncode == 1, first.stderr
    report = json.loads(first.stdout)
    assert report["ingested"] == 4 and len(report["failed"]) == 2
    jsonl = (LEGACY / "exported.jsonl").resolve()
    assert f"failed: {jsonl}:4: invalid JSON: Expecting value" in first.stderr
    assert f"{jsonl}:5: not a legacy session summary" in first.stderr

    second = cli(*args)
    assert second.returncode == 1
    assert (
        "6 legacy records: 0 migrated, 4 unchanged or superseded, 2 failed; 0 nodes and 0 edges"
        in second.stdout
    )

    good = cli(
        str(LEGACY / "exported.json"),
        "--group-id",
        "team_sessions",
        "--json",
        *backend_cli_args(graph_config),
    )
    assert good.returncode == 0, good.stderr
    assert [s["group_id"] for s in json.loads(good.stdout)["sessions"]] == ["team_sessions"]


def test_migrate_from_graph_then_query(graph_config: GraphConfig) -> None:
    async def seed() -> None:
        async with open_backend(graph_config) as backend:
            await seed_legacy_graph(backend)

    asyncio.run(seed())
    args = backend_cli_args(graph_config)
    dry = cli("--from-graph", "--dry-run", "--json", *args)
    assert dry.returncode == 1, dry.stderr  # two broken episodes
    assert f"failed: episode {ep(6)}:5: invalid YAML front matter" in dry.stderr
    assert {s["status"] for s in json.loads(dry.stdout)["sessions"]} == {"dry-run", "superseded"}

    real = cli("--from-graph", "--json", *args)
    assert real.returncode == 1
    report = json.loads(real.stdout)
    assert report["ingested"] == 4 and report["skipped"] == 1

    query = subprocess.run(
        [sys.executable, "-m", "graphiti_session_tracking", "query", "sessions", "--json", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert query.returncode == 0, query.stderr
    rows = json.loads(query.stdout)
    assert JWT_SESSION in {r["session_id"] for r in rows}
    assert HOST_TARGET in {r["group_id"] for r in rows}

    again = json.loads(cli("--from-graph", "--json", *args).stdout)
    assert (again["ingested"], again["nodes_written"], again["edges_written"]) == (0, 0, 0)
