"""A first ingest of many real sessions: throughput and whether memory grows with their number.

    .venv/bin/python bench/ingest_memory.py [--sessions 100,500,1000]

Each run copies the real dev transcripts (bench/corpus/dev) round robin into a fresh folder, each
copy a session of its own (a new session id), and ingests them with `graphiti-sessions ingest`
into a fresh FalkorDB Lite file, in a process of its own whose peak RSS is printed (the database
server is a process of its own). Goals: at least 40 sessions/s end to end on 2 cores; peak memory
at most 250 MB and flat in the number of sessions (the largest run against the smallest close to 1x).

A backfill's transcripts are old: the copies are dated `--age-days` ago (3 by default), so the
ledger keeps no parsed state for them (pipeline/prepare.py `may_grow`); with `--live` they are
dated now, as a session an agent is still writing, whose state is redacted and kept.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus" / "dev" / "transcripts"
_SESSION_ID = re.compile(rb'"sessionId":\s*"[^"]*"')


def copies(folder: Path, count: int, age_days: float) -> int:
    """`count` sessions made of the corpus transcripts; their total size in bytes."""
    originals = [p.read_bytes() for p in sorted(CORPUS.glob("*.jsonl"))]
    size = 0
    for index in range(count):
        session = str(uuid.UUID(int=index + 1))
        data = _SESSION_ID.sub(f'"sessionId":"{session}"'.encode(), originals[index % len(originals)])
        target = folder / f"project-{index % 20}" / f"{session}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        when = time.time() - age_days * 86400
        os.utime(target, (when, when))
        size += len(data)
    return size


def run(count: int, age_days: float) -> tuple[float, float, int]:
    """(seconds, peak MB of the ingest process, bytes read) for a first ingest of `count` sessions."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "transcripts"
        size = copies(folder, count, age_days)
        env = {
            **os.environ,
            "GRAPHITI_HOME": str(Path(tmp) / "home"),
            "GRAPHITI_TELEMETRY_ENABLED": "false",
            "GRAPHITI_SESSIONS_SERVER_IDLE_S": "0",
        }
        code = (
            "import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
            "if done.returncode: sys.exit(done.stderr.decode()[-2000:])\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        )
        command = [
            sys.executable,
            "-m",
            "graphiti_session_tracking",
            "ingest",
            "--db",
            str(Path(tmp) / "g.db"),
        ]
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code, *command, str(folder)], env=env, capture_output=True, text=True
        )
        elapsed = time.perf_counter() - started
        if out.returncode:
            raise SystemExit(out.stderr)
        # The peak of the largest child: the ingest (the server's keeper is started detached
        # and the server is its child, neither is counted here).
        peak_kb = int(out.stdout.strip().splitlines()[-1])
    return elapsed, peak_kb / 1024, size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", default="100,500,1000")
    parser.add_argument("--age-days", type=float, default=3.0)
    parser.add_argument("--live", action="store_true", help="copies dated now (sessions still being written)")
    args = parser.parse_args()
    age = 0.0 if args.live else args.age_days
    counts = [int(n) for n in args.sessions.split(",")]
    results = {}
    for count in counts:
        elapsed, peak, size = run(count, age)
        results[count] = peak
        print(
            f"{count:>6} sessions ({size / 1e6:.0f} MB): {elapsed:.1f} s, {count / elapsed:.1f} sessions/s "
            f"(goal >= 40), {size / 1e6 / elapsed:.1f} MB/s; peak {peak:.0f} MB (goal <= 250)"
        )
    print(
        f"peak memory, {counts[-1]} against {counts[0]} sessions: {results[counts[-1]] / results[counts[0]]:.2f}x"
    )


if __name__ == "__main__":
    main()
