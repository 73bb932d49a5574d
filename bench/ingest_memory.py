"""A first ingest of many real sessions: throughput and whether memory grows with their number.

    .venv/bin/python bench/ingest_memory.py [--sessions 100,500,1000]

Each run copies the real dev transcripts (bench/corpus/dev) round robin into a fresh folder, each
copy a session of its own (a new session id), and ingests them with `graphiti-sessions ingest`
into a fresh FalkorDB Lite file, in a process of its own whose peak RSS is printed, sampled every
50 ms, and the peak PSS of it with the worker processes that read transcripts on every core (pipeline/parallel.py;
the database server is a process of its own, not counted); then the largest run again in one
process (`GRAPHITI_SESSIONS_WORKERS=1`), and the ratio of the two. Goals: at least 40 sessions/s end to end on 2 cores; peak memory
at most 250 MB and flat in the number of sessions (the largest run against the smallest close to 1x).
Last, `--embedder-cost` sessions (1,000) with and without the local embedder: what it costs an
ingest end to end (goal <= 10%; bench/search_quality.py measures the writer alone).

A backfill's transcripts are old: the copies are dated `--age-days` ago (3 by default), so the
ledger keeps no parsed state for them (pipeline/prepare.py `may_grow`); with `--live` they are
dated now, as a session an agent is still writing, whose state is redacted and kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psutil

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


def run(
    count: int, age_days: float, workers: str = "", local: bool = True
) -> tuple[float, float, float, int]:
    """(seconds, peak MB of the ingest process, and with its workers, bytes read) for a first ingest
    of `count` sessions (`local`: with the local embedder, as by default)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "transcripts"
        size = copies(folder, count, age_days)
        config = Path(tmp) / "graphiti.config.json"
        config.write_text(json.dumps({"embedder": {"local": {"enabled": local}}}))
        env = {
            "GRAPHITI_SESSIONS_CONFIG": str(config),
            **os.environ,
            "GRAPHITI_HOME": str(Path(tmp) / "home"),
            "GRAPHITI_TELEMETRY_ENABLED": "false",
            "GRAPHITI_SESSIONS_SERVER_IDLE_S": "0",
            "GRAPHITI_SESSIONS_WORKERS": workers,  # empty: one per core
        }
        command = [
            sys.executable,
            "-m",
            "graphiti_session_tracking",
            "ingest",
            "--db",
            str(Path(tmp) / "g.db"),
            str(folder),
        ]
        started = time.perf_counter()
        process = psutil.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak, peak_tree = 0, 0
        while process.poll() is None:
            own, tree = _rss(process)
            peak, peak_tree = max(peak, own), max(peak_tree, tree)
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        if process.returncode:
            raise SystemExit(process.stderr.read().decode()[-2000:] if process.stderr else "ingest failed")
    return elapsed, peak / 2**20, peak_tree / 2**20, size


def _rss(process: psutil.Process) -> tuple[int, int]:
    """The ingest process's resident memory (RSS), and the proportional share (PSS: a page shared
    by n processes counts 1/n) of it and its reading workers together (the fork server and the
    pool; not the database server and its keeper, which outlive the run)."""
    try:
        own = process.memory_info().rss
        tree = process.memory_full_info().pss
        for child in process.children(recursive=True):
            command = " ".join(child.cmdline())
            if "redis-server" in command or "embedded_server" in command:
                continue
            tree += child.memory_full_info().pss
    except psutil.Error:
        return 0, 0
    return own, tree


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", default="100,500,1000")
    parser.add_argument("--age-days", type=float, default=3.0)
    parser.add_argument("--live", action="store_true", help="copies dated now (sessions still being written)")
    parser.add_argument(
        "--embedder-cost",
        type=int,
        default=1000,
        help="sessions ingested with and without the local embedder, twice each (0: skip)",
    )
    args = parser.parse_args()
    age = 0.0 if args.live else args.age_days
    counts = [int(n) for n in args.sessions.split(",")]
    results: dict[int, float] = {}
    rates: dict[int, float] = {}  # seconds of each run with the workers
    for count in counts:
        elapsed, peak, tree, size = run(count, age)
        results[count] = peak
        rates[count] = elapsed
        print(
            f"{count:>6} sessions ({size / 1e6:.0f} MB): {elapsed:.1f} s, {count / elapsed:.1f} sessions/s "
            f"(goal >= 40), {size / 1e6 / elapsed:.1f} MB/s; peak {peak:.0f} MB (goal <= 250), "
            f"{tree:.0f} MB with its reading workers"
        )
    print(
        f"peak memory, {counts[-1]} against {counts[0]} sessions: {results[counts[-1]] / results[counts[0]]:.2f}x"
    )
    alone, peak, _, _ = run(counts[-1], age, workers="1")
    print(
        f"{counts[-1]:>6} sessions in one process (no workers): {alone:.1f} s, {counts[-1] / alone:.1f} sessions/s, "
        f"peak {peak:.0f} MB; with the workers {alone / rates[counts[-1]]:.2f}x as fast"
    )
    if args.embedder_cost:
        embedder_cost(args.embedder_cost, age)


def embedder_cost(count: int, age: float) -> None:
    """What the local embedder costs a first ingest end to end (reading, summarizing, writing), the
    way a person runs it: the best of two runs each way, taken in turns."""
    without, with_local = [], []
    for _ in range(2):
        without.append(run(count, age, local=False)[0])
        with_local.append(run(count, age)[0])
    off, on = min(without), min(with_local)
    print(
        f"{count:>6} sessions end to end: {count / off:.1f}/s without the local embedder, {count / on:.1f}/s "
        f"with it; throughput cost {1 - off / on:.1%} (goal <= 10%)"
    )


if __name__ == "__main__":
    main()
