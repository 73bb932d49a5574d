"""Wall time of the commands people type at a prompt, beside `python -c pass`, in one run.

    .venv/bin/python bench/cli_latency.py [--sessions 1000] [--runs 5]

Builds a FalkorDB Lite database of N generated sessions (10 projects; bench/ingest.py's
summaries) once, then times each `query` command, `search`, and `ingest` of the unchanged tree as
separate processes (median of the runs, after one warm-up run each). Each query twice: as a
person at the prompt sees it (`--table`: the first 50 rows), and in a pipe (every row, plain).
Goals: every query <= 0.25 s at the prompt with the server warm (issue: at 5,000 sessions) and
<= 0.6 s cold (the file's shared server stopped: started and loaded by the query), `search` <= 0.5 s,
unchanged ingest <= 0.3 s. PYTHONDONTWRITEBYTECODE is dropped from the environment: an installed
package has its compiled bytecode, and this machine's setting would make every run compile every
module again.
"""

from __future__ import annotations

import argparse
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

from graphiti_session_tracking.graph.falkordblite import IDLE_ENV, registry_file

CLI = [sys.executable, "-m", "graphiti_session_tracking"]


def wall(command: list[str], runs: int, env: dict[str, str]) -> float:
    subprocess.run(command, capture_output=True, env=env)  # warm-up: bytecode, file cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GRAPHITI_HOME": str(Path(tmp) / "home")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        folder = Path(tmp) / "summaries"
        folder.mkdir()
        for summary in generate(args.sessions, 10, "lat"):
            (folder / f"{summary.session_id}.json").write_text(summary.model_dump_json())
        db = str(Path(tmp) / "sessions.falkordb")
        sources = sorted(str(p) for p in folder.iterdir())  # folders are searched for transcripts only
        started = time.perf_counter()
        subprocess.run([*CLI, "ingest", "--db", db, *sources], check=True, capture_output=True, env=env)
        print(f"built a {args.sessions}-session database in {time.perf_counter() - started:.1f} s")
        baseline = wall([sys.executable, "-c", "pass"], args.runs, env)
        print(f"{'command':<40} {'wall s':>8} {'x python -c pass':>17} goal")
        print(f"{'python -c pass':<40} {baseline:>8.3f} {1:>17.1f}")
        queries = ("files", "decisions", "errors", "config-changes", "sessions", "tests", "commits")
        commands = {
            **{f"query {q} --table": ["query", q, "--table", "--db", db] for q in queries},
            "query errors --seen-before --table": ["query", "errors", "--seen-before", "--table", "--db", db],
            "query errors --text KeyError --table": [
                "query",
                "errors",
                "--text",
                "KeyError",
                "--table",
                "--db",
                db,
            ],
            **{
                f"query {q} | (every row)": ["query", q, "--db", db] for q in ("files", "decisions", "errors")
            },
            "search billing": ["search", "billing", "--db", db],
            "ingest (unchanged sources)": ["ingest", "--db", db, *sources],
        }
        for name, command in commands.items():
            seconds = wall([*CLI, *command], args.runs, env)
            goal = (
                0.3
                if name.startswith("ingest")
                else 0.5
                if "|" in name or name.startswith("search")
                else 0.25
            )
            mark = "ok" if seconds <= goal else f"> {goal}"
            print(f"{name:<40} {seconds:>8.3f} {seconds / baseline:>17.1f} {mark}")
        seconds = cold([*CLI, "query", "commits", "--table", "--db", db], args.runs, env, Path(db))
        mark = "ok" if seconds <= 0.6 else "> 0.6"
        print(
            f"{'query commits --table, server cold':<40} {seconds:>8.3f} {seconds / baseline:>17.1f} {mark}"
        )


def cold(command: list[str], runs: int, env: dict[str, str], db: Path) -> float:
    """Median wall time of `command` when the file's shared server is not running: each run waits
    for the server to stop (it does half a second after its last user here) and starts it anew."""
    env = {**env, IDLE_ENV: "0.5"}
    subprocess.run(command, capture_output=True, env=env)  # the server now stops soon after use
    times = []
    for _ in range(runs):
        _stopped(db)
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - started)
    _stopped(db)  # before the folder is removed: a server still running writes into it
    return statistics.median(times)


def _stopped(db: Path) -> None:
    deadline = time.monotonic() + 60
    while registry_file(db).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"the server of {db} did not stop")
        time.sleep(0.1)


if __name__ == "__main__":
    main()
