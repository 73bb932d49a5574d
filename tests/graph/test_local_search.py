"""Our own vectors on both backends: written on ingest under `gs_embedding` on `:GsVector` nodes
(never name_embedding / fact_embedding), and the hybrid search they give."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from graph.test_queries import APP, S2, SUMMARIES, summary

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.local_embedder import DIMENSIONS, LocalEmbedder
from graphiti_session_tracking.graph.schema import Label, entity_uuid
from graphiti_session_tracking.graph.search import fuse, nearest_hits, scored_search, search_sessions
from graphiti_session_tracking.graph.writer import SessionGraphWriter

S9 = "9999aaaa-0000-4000-8000-000000000009"
DB_ERROR = "psycopg2.OperationalError: could not connect to server: Connection refused"
PARAPHRASE = "database unreachable"  # no word of it is in the graph


def outage(**extra: object) -> list:  # type: ignore[type-arg]
    return [
        *SUMMARIES,
        summary(
            S9,
            "/work/app",
            datetime(2026, 2, 1, tzinfo=UTC),
            objective="Get the test suite green again",
            errors_resolved=[
                {
                    "error": DB_ERROR,
                    "root_cause": "the postgres container was stopped",
                    "fix": "docker compose up",
                }
            ],
            **extra,
        ),
    ]


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder.load()


async def _rows(backend: Backend, group: str, query: str) -> list[dict[str, object]]:
    driver = await backend.driver_for(group)
    records, _, _ = await driver.execute_query(query)
    return [dict(r) for r in records]


async def test_vectors_are_written_under_our_property_only(backend: Backend, local: LocalEmbedder) -> None:
    await SessionGraphWriter(backend, local=local).ingest_many(outage())
    vectors = await _rows(
        backend,
        APP,
        "MATCH (v:GsVector) RETURN v.record AS uuid, v.kind AS kind, v.group_id AS g, v.gs_embedding AS e",
    )
    kinds = {str(v["kind"]) for v in vectors}
    assert kinds == {"Session", "Decision", "ErrorResolution", "ConfigChange"}
    assert all(len(v["e"]) == DIMENSIONS for v in vectors)  # type: ignore[arg-type]
    assert entity_uuid(APP, Label.SESSION, S9) in {v["uuid"] for v in vectors}
    # Graphiti's own vector properties stay untouched, and no entity carries our vector itself
    # (graphiti-core returns every entity property to the Graphiti MCP server).
    (found,) = await _rows(
        backend,
        APP,
        "MATCH (n:Entity) RETURN count(n.name_embedding) AS names, count(n.gs_embedding) AS ours, "
        "count(n) AS entities",
    )
    assert found["names"] == 0 and found["ours"] == 0 and found["entities"] > 0  # type: ignore[operator]
    (facts,) = await _rows(backend, APP, "MATCH ()-[r:RELATES_TO]->() RETURN count(r.fact_embedding) AS n")
    assert facts["n"] == 0


async def test_a_replaced_session_drops_the_vectors_of_records_it_lost(
    backend: Backend, local: LocalEmbedder
) -> None:
    writer = SessionGraphWriter(backend, local=local)
    await writer.ingest_many(outage())
    error = "MATCH (v:GsVector {kind: 'ErrorResolution'}) RETURN count(v) AS n"
    before = (await _rows(backend, APP, error))[0]["n"]
    await writer.ingest_many([outage(outcome="blocked")[-1].model_copy(update={"errors_resolved": []})])
    assert (await _rows(backend, APP, error))[0]["n"] == before - 1  # type: ignore[operator]


async def test_a_paraphrase_finds_what_keywords_miss(backend: Backend, local: LocalEmbedder) -> None:
    await SessionGraphWriter(backend, local=local).ingest_many(outage())
    keyword = await search_sessions(backend, PARAPHRASE, limit=5)
    assert DB_ERROR not in [h.text for h in keyword]
    hybrid = await search_sessions(backend, PARAPHRASE, limit=5, local=local)
    assert hybrid[0].text == DB_ERROR and hybrid[0].type == "ErrorResolution"
    assert (await scored_search(backend, PARAPHRASE, limit=5, local=local))[1] == "rrf"
    near = await nearest_hits(backend, PARAPHRASE, local, limit=3, kind="error")
    assert [h.text for h in near][:1] == [DB_ERROR] and 0 < near[0].score <= 1
    assert await nearest_hits(backend, PARAPHRASE, local, kind="file") == []  # files: found by name


async def test_hybrid_scores_are_the_fused_reciprocal_ranks_best_first(
    backend: Backend, local: LocalEmbedder
) -> None:
    await SessionGraphWriter(backend, local=local).ingest_many(outage())
    hits = await search_sessions(backend, "Keep sessions in Redis", group_id=APP, limit=10, local=local)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(0 < h.score <= 2 for h in hits)
    top = hits[0]  # the exact name: first in full text, and among the nearest in meaning
    assert (top.text, top.type) == ("Keep sessions in Redis", "Decision") and top.score >= 1.5
    assert {h.group_id for h in hits} == {APP}


async def test_without_the_local_embedder_search_is_todays(backend: Backend, local: LocalEmbedder) -> None:
    """Embedder off: nothing is embedded, and search gives the full-text index's own scores,
    whether or not vectors of an earlier run are in the graph."""
    await SessionGraphWriter(backend).ingest_many(outage())
    assert await _rows(backend, APP, "MATCH (v:GsVector) RETURN v.record AS u") == []
    assert await nearest_hits(backend, "Redis", local) == []  # no vectors: the leg finds nothing
    plain = await search_sessions(backend, "Redis", limit=10)
    assert any(h.score not in (1.0, 0.5) for h in plain)  # the index's relevance, not ranks
    # A graph written before vectors: the local search keeps the full-text scores, and says so.
    assert await scored_search(backend, "Redis", limit=10, local=local) == (plain, "full_text")

    await SessionGraphWriter(backend, local=local).ingest_many(outage(outcome="blocked"))
    with_vectors = await search_sessions(backend, "Redis", limit=10)
    await _rows(backend, APP, "MATCH (v:GsVector) DELETE v")
    assert await search_sessions(backend, "Redis", limit=10) == with_vectors


def test_fuse_sums_reciprocal_ranks() -> None:
    from graphiti_session_tracking.graph.search import SearchHit

    a, b, c = (SearchHit("node", "Decision", t, t, APP, 9.0) for t in "abc")
    fused = fuse([[a, b], [b, c]])
    assert [(h.uuid, h.score) for h in fused] == [("b", 1.5), ("a", 1.0), ("c", 0.5)]
    assert S2  # the shared fixtures are the ones test_queries writes


async def test_sessions_written_before_the_embedder_get_their_vectors_later(
    backend: Backend, local: LocalEmbedder
) -> None:
    """A graph written with the local embedder off: turning it on gives every stored session the
    vectors a write would have made (read back from its episode), once; search finds them."""
    await SessionGraphWriter(backend).ingest_many(outage())
    assert await _rows(backend, APP, "MATCH (v:GsVector) RETURN v.record AS uuid") == []
    writer = SessionGraphWriter(backend, local=local)
    assert await writer.backfill_vectors(batch_size=2) == len(outage())
    written = {
        str(r["uuid"]): str(r["kind"])
        for r in await _rows(backend, APP, "MATCH (v:GsVector) RETURN v.record AS uuid, v.kind AS kind")
    }
    assert await writer.backfill_vectors() == 0  # nothing left without vectors
    assert written[entity_uuid(APP, Label.SESSION, S9)] == "Session"
    assert set(written.values()) == {"Session", "Decision", "ErrorResolution", "ConfigChange"}
    hits = await nearest_hits(backend, PARAPHRASE, local, limit=3, kind="error")
    assert any(DB_ERROR in hit.text for hit in hits)
