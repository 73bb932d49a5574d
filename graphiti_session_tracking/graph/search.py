"""Search over the session graph: entities, relations (facts) and episodes, best first.

Three ways, by what is configured:
- full text only, with no embedder at all: the full-text indexes Graphiti builds, asked by
  `fulltext.py` in one query per graph, each hit scored by the index's own relevance (Lucene BM25
  on Neo4j, RediSearch's score on FalkorDB);
- local hybrid (the default): that full text plus the local embedder's nearest sessions,
  decisions, errors and settings (`vectors.py`), fused by reciprocal rank over the whole search
  (every group at once, so FalkorDB's one graph per group ranks as one list);
- Graphiti's own hybrid search with a configured OpenAI-compatible embedder (BM25 + cosine
  similarity on name_embedding / fact_embedding, fused by Graphiti per kind and graph:
  `graphiti_search.py`, the only way that imports graphiti-core).

A hybrid search scores the fused RRF: the sum of 1/rank over the methods that found the hit (at
most 2). Neither of the first two imports graphiti-core, so a search at the prompt costs what a
query costs, plus the local embedder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from graphiti_session_tracking.redact import Gate

from . import fulltext, vectors
from .backends import Backend, Read
from .fulltext import SearchHit
from .local_embedder import LocalEmbedder
from .schema import DEFAULT_SEARCH_LIMIT, EMBEDDED_LABELS, SEARCH_TYPES

if TYPE_CHECKING:  # a configured embedder is graphiti-core's; imported only when one is
    from graphiti_core.embedder.client import EmbedderClient

CONCURRENT_GRAPHS = 8  # project graphs searched at once (each search holds one connection)

# A graph to search: the group whose graph it is (None: Neo4j's one database), and the group ids
# to filter it by (None: every group).
Target = tuple[str | None, list[str] | None]


class SearchError(ValueError):
    """A search that cannot run as asked (unknown --type, bad limit)."""


async def search_sessions(
    backend: Backend,
    text: str,
    group_id: str | None = None,
    limit: int = DEFAULT_SEARCH_LIMIT,
    kind: str | None = None,
    embedder: EmbedderClient | None = None,
    local: LocalEmbedder | None = None,
) -> list[SearchHit]:
    """The best `limit` hits for `text` over one group or every group, best first. `embedder`
    (configured, OpenAI-compatible) wins over `local`; with neither, full text only."""
    hits, _ = await scored_search(backend, text, group_id, limit, kind, embedder, local)
    return hits


async def scored_search(
    backend: Backend,
    text: str,
    group_id: str | None = None,
    limit: int = DEFAULT_SEARCH_LIMIT,
    kind: str | None = None,
    embedder: EmbedderClient | None = None,
    local: LocalEmbedder | None = None,
) -> tuple[list[SearchHit], str]:
    """`search_sessions`, and what its scores are: `full_text` (the index's relevance) or `rrf`.
    A local search that found no vector (a graph written before them, a kind never embedded)
    keeps the full-text scores rather than ranks of one list."""
    _check(text, limit, kind)
    if not text.strip():
        return [], "full_text"
    targets = await _targets(backend, group_id)
    if embedder is not None:
        return _redacted(
            _best_first(await _graphiti_hybrid(backend, targets, text, limit, kind, embedder))[:limit]
        ), "rrf"

    async def full_text(target: Target) -> list[SearchHit]:
        read = _reader(backend, target[0])
        return await fulltext.search(read, backend.dialect, text, target[1], limit, kind)

    hits, near = await asyncio.gather(
        _each_graph(targets, full_text),
        _nearest(backend, targets, text, limit, kind, local) if local is not None else _none(),
    )
    if near:
        return _redacted(fuse([_best_first(hits), near])[:limit]), "rrf"
    return _redacted(_best_first(hits)[:limit]), "full_text"


async def _graphiti_hybrid(
    backend: Backend, targets: list[Target], text: str, limit: int, kind: str | None, embedder: EmbedderClient
) -> list[SearchHit]:
    from .graphiti_search import hybrid_hits

    async def one(target: Target) -> list[SearchHit]:
        group, group_ids = target
        driver = await backend.driver_for(group) if group is not None else backend.driver
        return await hybrid_hits(driver, embedder, text, group_ids, limit, kind)

    return await _each_graph(targets, one)


async def _none() -> list[SearchHit]:
    return []


def _reader(backend: Backend, group: str | None) -> Read:
    async def read(cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return await backend.read(group, cypher, params)

    return read


async def _each_graph(
    targets: list[Target], search: Callable[[Target], Awaitable[list[SearchHit]]]
) -> list[SearchHit]:
    """`search` over every target graph, several at once (FalkorDB keeps one graph per project
    and answers reads on a pool of threads); the hits in the targets' order."""
    gate = asyncio.Semaphore(CONCURRENT_GRAPHS)

    async def one(target: Target) -> list[SearchHit]:
        async with gate:
            return await search(target)

    found = await asyncio.gather(*(one(target) for target in targets))
    return [hit for hits in found for hit in hits]


async def nearest_hits(
    backend: Backend,
    text: str,
    local: LocalEmbedder,
    group_id: str | None = None,
    limit: int = DEFAULT_SEARCH_LIMIT,
    kind: str | None = None,
) -> list[SearchHit]:
    """The local embedder's leg alone: the records nearest in meaning, scored by cosine similarity."""
    _check(text, limit, kind)
    if not text.strip():
        return []
    found = await _nearest(backend, await _targets(backend, group_id), text, limit, kind, local)
    return _redacted(found[:limit])


def fuse(lists: Sequence[Sequence[SearchHit]]) -> list[SearchHit]:
    """Reciprocal-rank fusion: each hit scores the sum of 1/rank (rank 1 the best) over the lists
    that hold it, as Graphiti's own RRF does; a hit keeps the fields of its first appearance."""
    first: dict[str, SearchHit] = {}
    score: dict[str, float] = {}
    for ranked in lists:
        for rank, hit in enumerate(ranked, start=1):
            first.setdefault(hit.uuid, hit)
            score[hit.uuid] = score.get(hit.uuid, 0.0) + 1.0 / rank
    return _best_first([replace(hit, score=score[uuid]) for uuid, hit in first.items()])


def _check(text: str, limit: int, kind: str | None) -> None:
    if limit < 1:
        raise SearchError("limit must be at least 1")
    if kind is not None and kind not in SEARCH_TYPES:
        raise SearchError(f"unknown type {kind!r}; known: {', '.join(SEARCH_TYPES)}")


async def _targets(backend: Backend, group_id: str | None) -> list[Target]:
    """The graphs to search, each with the group ids to filter it by (None: every group)."""
    if group_id is not None:
        return [(group_id, [group_id])]
    if backend.graph_per_group:
        return [(g, [g]) for g in await backend.list_groups()]
    return [(None, None)]  # Neo4j: one database holds every group


async def _nearest(
    backend: Backend,
    targets: list[Target],
    text: str,
    limit: int,
    kind: str | None,
    local: LocalEmbedder,
) -> list[SearchHit]:
    """The local embedder's nearest records over every target, best first (cosine similarity:
    comparable across groups and graphs, unlike full-text scores)."""
    labels = [label.value for label in EMBEDDED_LABELS]
    if kind is not None:
        label = SEARCH_TYPES[kind][0]
        labels = [label.value] if label in EMBEDDED_LABELS else []
    vector = local.embed_one(text)
    if vector is None or not labels:
        return []
    kinds = None if len(labels) == len(EMBEDDED_LABELS) else labels
    packed = backend.dialect.pack_vector(vector)

    async def near(target: Target) -> list[SearchHit]:
        group, group_ids = target
        read = _reader(backend, group)
        if not await vectors.has_index(read, backend.dialect, backend.indexed_graphs, group):
            return []
        found = await vectors.nearest(read, backend.dialect, packed, limit, group_ids, kinds)
        return [SearchHit("node", n.kind, n.name, n.uuid, n.group_id, n.similarity) for n in found]

    return _best_first(await _each_graph(targets, near))[:limit]


def _best_first(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """Best score first; ties in a stable, readable order."""
    return sorted(hits, key=lambda h: (-h.score, h.kind, h.type, h.text, h.uuid))


def _redacted(hits: list[SearchHit]) -> list[SearchHit]:
    gate = Gate()  # a graph written by an older version may hold what today's rules redact
    return [replace(hit, text=gate.text(hit.text)) for hit in hits]
