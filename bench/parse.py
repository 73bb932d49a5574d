"""Transcript parsing throughput (MB/s) and peak memory, on generated transcripts of growing size.

    .venv/bin/python bench/parse.py [--mb 200]

Each size is read in a fresh process, so peak RSS is that read's own. Printed as ratios measured
in this one run: throughput, and the memory of the largest file against the smallest.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

READ = """
import resource, sys, time
from graphiti_session_tracking.transcripts import read_transcript
start = time.perf_counter()
session = read_transcript(sys.argv[1])
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(session.tool_calls))
"""


def generate(path: Path, target_mb: int) -> None:
    """A realistic mix: prompts, split assistant responses with tool calls, results of all sizes."""
    session = {"sessionId": "bench", "cwd": "/work/app", "version": "2.1.14", "gitBranch": "main"}
    code = "def f(x):\n    return x * 2\n" * 400  # ~12 KB file content
    out = "test_module.py::test_case PASSED\n" * 200
    with path.open("w") as handle:
        i = 0
        while handle.tell() < target_mb * 1_000_000:
            ts = f"2026-01-01T10:{(i // 60) % 60:02d}:{i % 60:02d}Z"
            rows = [
                {
                    "type": "user",
                    "uuid": f"u{i}",
                    "timestamp": ts,
                    **session,
                    "message": {"role": "user", "content": f"Please change step {i}"},
                },
                {
                    "type": "assistant",
                    "uuid": f"a{i}",
                    "timestamp": ts,
                    **session,
                    "requestId": f"r{i}",
                    "message": {
                        "id": f"m{i}",
                        "role": "assistant",
                        "content": [{"type": "text", "text": "On it."}],
                        "usage": {"input_tokens": 10, "output_tokens": 3},
                    },
                },
                {
                    "type": "assistant",
                    "uuid": f"b{i}",
                    "timestamp": ts,
                    **session,
                    "requestId": f"r{i}",
                    "message": {
                        "id": f"m{i}",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"w{i}",
                                "name": "Write",
                                "input": {"file_path": f"/work/app/src/m{i}.py", "content": code},
                            },
                            {
                                "type": "tool_use",
                                "id": f"b{i}",
                                "name": "Bash",
                                "input": {"command": "pytest -q"},
                            },
                        ],
                        "usage": {"input_tokens": 10, "output_tokens": 40},
                    },
                },
                {
                    "type": "user",
                    "uuid": f"r{i}",
                    "timestamp": ts,
                    **session,
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"w{i}", "content": "File created"},
                            {"type": "tool_result", "tool_use_id": f"b{i}", "content": out},
                        ],
                    },
                },
            ]
            handle.write("".join(json.dumps(r) + "\n" for r in rows))
            i += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of the largest transcript")
    args = parser.parse_args()
    sizes = [max(1, args.mb // 10), args.mb // 2, args.mb]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            path = Path(tmp) / f"t{mb}.jsonl"
            generate(path, mb)
            real_mb = path.stat().st_size / 1e6
            out = subprocess.run(
                [sys.executable, "-c", READ, str(path)], capture_output=True, text=True, check=True
            )
            seconds, peak_mb, calls = out.stdout.split()
            results.append((real_mb, float(seconds), float(peak_mb), int(calls)))
            path.unlink()
    print(f"{'file MB':>8} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'tool calls':>11}")
    for real_mb, seconds, peak, calls in results:
        print(f"{real_mb:8.0f} {seconds:8.2f} {real_mb / seconds:8.1f} {peak:12.0f} {calls:11d}")
    small, large = results[0], results[-1]
    print(f"throughput on the largest file: {large[0] / large[1]:.1f} MB/s (goal >= 50)")
    print(
        f"peak memory, largest vs smallest file: {large[2] / small[2]:.2f}x for "
        f"{large[0] / small[0]:.0f}x the data (flat would be about 1x; held: the parsed session, "
        f"which grows with the number of tool calls, not their size)"
    )


if __name__ == "__main__":
    main()
