"""Peak memory of `graphiti-sessions ingest` on long sessions and on large transcripts.

    .venv/bin/python bench/memory.py [--calls 5000,20000,50000] [--mb 50,200,500]

Two series, each input generated in a temporary folder (tests/transcripts/large_transcripts.py)
and ingested end to end (read, classify, summarize, FalkorDB Lite write, ledger record) in a fresh
process, whose own peak RSS is printed (the FalkorDB server is a process of its own):

- sessions of growing numbers of tool calls, in Claude Code's record shapes (about 5.5 KB of
  transcript a call): memory should be nearly flat in the number of calls;
- transcripts of growing size made of large tool outputs and file contents (about 250 KB a
  call): memory should not follow the size of the file.

Goals, printed against the figures: the 50,000-call session well under 400 MB; the largest of
each series against the smallest close to 1x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "transcripts"))

from large_transcripts import INGEST, write_large_outputs, write_many_calls  # noqa: E402


def ingest(source: Path, folder: Path) -> tuple[float, float]:
    """(peak RSS in MB, seconds) of one ingest of `source` into a new database."""
    env = {**os.environ, "GRAPHITI_TELEMETRY_ENABLED": "false", "GRAPHITI_HOME": str(folder / "home")}
    db = folder / f"{source.stem}.falkordb"
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", INGEST, str(source), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    seconds = time.perf_counter() - start
    _, peak, _, code = done.stderr.strip().splitlines()[-1].split()
    if code != "0" or '"ingested": 1' not in done.stdout:
        raise SystemExit(f"ingest of {source} failed:\n{done.stderr[-2000:]}")
    return float(peak), seconds


def series(title: str, rows: list[tuple[str, float, int, float, float]]) -> None:
    print(f"\n{title}")
    print(f"{'input':>14} {'file MB':>8} {'tool calls':>10} {'peak RSS MB':>12} {'seconds':>8}")
    for label, megabytes, calls, peak, seconds in rows:
        print(f"{label:>14} {megabytes:8.0f} {calls:10d} {peak:12.0f} {seconds:8.1f}")
    first, last = rows[0], rows[-1]
    print(
        f"largest vs smallest: {last[3] / first[3]:.2f}x the memory for {last[2] / first[2]:.1f}x the calls "
        f"and {last[1] / first[1]:.1f}x the bytes (flat would be 1x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", default="5000,20000,50000", help="tool calls of each long session")
    parser.add_argument("--mb", default="50,200,500", help="sizes (MB) of the large-output transcripts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        folder = Path(tmp)
        calls_rows = []
        for calls in (int(n) for n in args.calls.split(",")):
            source = folder / f"calls-{calls}.jsonl"
            expected = write_many_calls(source, calls)
            megabytes = source.stat().st_size / 1e6
            peak, seconds = ingest(source, folder)
            calls_rows.append((f"{calls} calls", megabytes, expected.tool_calls, peak, seconds))
            source.unlink()
        size_rows = []
        for target in (int(n) for n in args.mb.split(",")):
            source = folder / f"size-{target}.jsonl"
            calls = write_large_outputs(source, target * 1_000_000)
            megabytes = source.stat().st_size / 1e6
            peak, seconds = ingest(source, folder)
            size_rows.append((f"{target} MB", megabytes, calls, peak, seconds))
            source.unlink()
    series("Long sessions (about 5.5 KB of transcript a call)", calls_rows)
    largest = calls_rows[-1]
    print(f"{largest[0]}: peak {largest[3]:.0f} MB (goal: well under 400 MB)")
    series("Large transcripts (outputs and file contents of about 250 KB a call)", size_rows)


if __name__ == "__main__":
    main()
