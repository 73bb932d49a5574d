"""Graphiti's own search over the session graph: entities, relations (facts) and episodes.

Three ways, by what is configured:
- full text (BM25) only, with no embedder at all;
- local hybrid (the default): BM25 over everything plus the local embedder's nearest sessions,
  decisions, errors and settings (`vectors.py`), fused by reciprocal rank over the whole search
  (every group at once, so FalkorDB's one graph per group ranks as one list);
- Graphiti's hybrid with a configured OpenAI-compatible embedder (BM25 + cosine similarity on
  name_embedding / fact_embedding, fused by Graphiti per kind and graph).

Scores: Graphiti's search keeps only the rank of a full-text hit (its RRF over one list is 1/rank,
so every list's best hit scored 1.0), so a full-text search asks the same index for the hits' own
relevance (Lucene BM25 on Neo4j, RediSearch's score on FalkorDB). A hybrid search keeps the fused
RRF score: the sum of 1/rank over the methods that found the hit (at most 2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, NoReturn

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.driver import GraphDriver, GraphProvider
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.graph_queries import get_nodes_query, get_relationships_query
from graphiti_core.graphiti_types import GraphitiClients
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import ModelSize
from graphiti_core.prompts.models import Message
from graphiti_core.search.search import search as graphiti_search
from graphiti_core.search.search_config import (
    EdgeReranker,
    EdgeSearchConfig,
    EdgeSearchMethod,
    EpisodeReranker,
    EpisodeSearchConfig,
    EpisodeSearchMethod,
    NodeReranker,
    NodeSearchConfig,
    NodeSearchMethod,
    SearchConfig,
    SearchResults,
)
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import fulltext_query
from graphiti_core.tracer import NoOpTracer
from pydantic import BaseModel

from graphiti_session_tracking.redact import Gate

from . import vectors
from .backends import Backend
from .local_embedder import LocalEmbedder
from .mapping import EMBEDDED_LABELS
from .schema import DEFAULT_SEARCH_LIMIT, SEARCH_TYPES

CONCURRENT_GRAPHS = 8  # project graphs searched at once (each search holds one connection)


@dataclass(frozen=True)
class SearchHit:
    """One result: an entity (`node`), a relation (`edge`, its fact) or a session `episode`."""

    kind: str  # "node", "edge" or "episode"
    type: str  # the node's label, the edge's relation name, or "Episodic"
    text: str  # the node's name, the edge's fact, or the episode's name
    uuid: str
    group_id: str
    score: float  # full text: the index's relevance (> 0, unbounded); hybrid: the fused RRF score

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SearchError(ValueError):
    """A search that cannot run as asked (unknown --type, bad limit)."""


# Graphiti's GraphitiClients wants an LLM client and a cross-encoder even for a search that uses
# neither (BM25 / cosine search with RRF reranking never calls them). These stand-ins satisfy the
# type and fail loudly if Graphiti ever did call them, rather than reaching a real service.
class _UnusedLLMClient(LLMClient):
    def __init__(self) -> None:
        super().__init__(config=None, cache=False)

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = 0,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        _never("an LLM")


class _UnusedCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        _never("a cross-encoder")


class _NoEmbedder(EmbedderClient):
    """Without a configured embedder the search is BM25 only, so nothing asks for a vector."""

    async def create(self, input_data: Any) -> list[float]:
        _never("an embedder")

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        _never("an embedder")


def _never(what: str) -> NoReturn:
    raise RuntimeError(f"graphiti-sessions search does not use {what}; Graphiti asked for one")


def search_config(
    limit: int, hybrid: bool, nodes: bool = True, edges: bool = True, episodes: bool = True
) -> SearchConfig:
    """BM25 on every scope; with an embedder, cosine similarity too on entities and relations."""
    node_methods = [NodeSearchMethod.bm25] + ([NodeSearchMethod.cosine_similarity] if hybrid else [])
    edge_methods = [EdgeSearchMethod.bm25] + ([EdgeSearchMethod.cosine_similarity] if hybrid else [])
    return SearchConfig(
        node_config=NodeSearchConfig(search_methods=node_methods, reranker=NodeReranker.rrf)
        if nodes
        else None,
        edge_config=EdgeSearchConfig(search_methods=edge_methods, reranker=EdgeReranker.rrf)
        if edges
        else None,
        episode_config=(
            EpisodeSearchConfig(search_methods=[EpisodeSearchMethod.bm25], reranker=EpisodeReranker.rrf)
            if episodes
            else None
        ),
        limit=limit,
    )


def clients_for(driver: GraphDriver, embedder: EmbedderClient | None) -> GraphitiClients:
    """The clients Graphiti's search takes; only the driver (and an embedder, if any) is used."""
    return GraphitiClients(
        driver=driver,
        llm_client=_UnusedLLMClient(),
        embedder=embedder if embedder is not None else _NoEmbedder(),
        cross_encoder=_UnusedCrossEncoder(),
        tracer=NoOpTracer(),
    )


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
    hybrid = embedder is not None

    async def full_text(driver: GraphDriver, group_ids: list[str] | None) -> list[SearchHit]:
        clients = clients_for(driver, embedder)
        hits: list[SearchHit] = []
        for config, search_filter in _plans(kind, limit, hybrid):
            results = await graphiti_search(clients, text, group_ids, config, search_filter, driver=driver)
            found = list(_hits(results))
            hits.extend(found if hybrid else await _index_scored(driver, text, group_ids, found, limit))
        return hits

    hits, near = await asyncio.gather(
        _each_graph(targets, full_text),
        _nearest(backend, targets, text, limit, kind, local) if local is not None and not hybrid else _none(),
    )
    scored_by = "rrf" if hybrid else "full_text"
    if near:
        hits, scored_by = fuse([_best_first(hits), near]), "rrf"
    return _redacted(_best_first(hits)[:limit]), scored_by


async def _none() -> list[SearchHit]:
    return []


async def _each_graph(
    targets: list[tuple[GraphDriver, list[str] | None]],
    search: Callable[[GraphDriver, list[str] | None], Awaitable[list[SearchHit]]],
) -> list[SearchHit]:
    """`search` over every target graph, several at once (FalkorDB keeps one graph per project
    and answers reads on a pool of threads); the hits in the targets' order."""
    gate = asyncio.Semaphore(CONCURRENT_GRAPHS)

    async def one(driver: GraphDriver, group_ids: list[str] | None) -> list[SearchHit]:
        async with gate:
            return await search(driver, group_ids)

    found = await asyncio.gather(*(one(driver, group_ids) for driver, group_ids in targets))
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


async def _targets(backend: Backend, group_id: str | None) -> list[tuple[GraphDriver, list[str] | None]]:
    """The graphs to search, each with the group ids to filter it by (None: every group)."""
    if group_id is not None:
        return [(await backend.driver_for(group_id), [group_id])]
    if backend.graph_per_group:
        return [(await backend.driver_for(g), [g]) for g in await backend.list_groups()]
    return [(backend.driver, None)]  # Neo4j: one database holds every group


async def _nearest(
    backend: Backend,
    targets: list[tuple[GraphDriver, list[str] | None]],
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

    async def near(driver: GraphDriver, group_ids: list[str] | None) -> list[SearchHit]:
        return [
            SearchHit("node", n.kind, n.name, n.uuid, n.group_id, n.similarity)
            for n in await vectors.nearest(driver, backend.dialect, vector, limit, group_ids, kinds)
        ]

    return _best_first(await _each_graph(targets, near))[:limit]


def _best_first(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """Best score first; ties in a stable, readable order."""
    return sorted(hits, key=lambda h: (-h.score, h.kind, h.type, h.text, h.uuid))


def _redacted(hits: list[SearchHit]) -> list[SearchHit]:
    gate = Gate()  # a graph written by an older version may hold what today's rules redact
    return [replace(hit, text=gate.text(hit.text)) for hit in hits]


def _plans(kind: str | None, limit: int, hybrid: bool) -> list[tuple[SearchConfig, SearchFilters]]:
    """One Graphiti search per filter: a label filter on edges would need it on both endpoints,
    so entities and relations of one type are searched separately."""
    if kind is None:
        return [(search_config(limit, hybrid), SearchFilters())]
    label, relations = SEARCH_TYPES[kind]
    if label is None:
        return [(search_config(limit, hybrid, nodes=False, edges=False), SearchFilters())]
    return [
        (search_config(limit, hybrid, edges=False, episodes=False), SearchFilters(node_labels=[label.value])),
        (
            search_config(limit, hybrid, nodes=False, episodes=False),
            SearchFilters(edge_types=[r.value for r in relations]),
        ),
    ]


# The full-text index of each kind of hit (Graphiti's names; FalkorDB's are mapped by graph_queries)
# and what its procedure yields.
_INDEX = {
    "node": ("node_name_and_summary", "node"),
    "edge": ("edge_name_and_fact", "relationship"),
    "episode": ("episode_content", "node"),
}


def _score_query(kind: str, provider: GraphProvider) -> str:
    """The Cypher that asks a kind's full-text index for the score of the hits `$uuids` under
    the query text `$query` (the one Graphiti's search ran); index names are constants."""
    index, item = _INDEX[kind]
    call = (
        get_relationships_query(index, 0, provider)
        if kind == "edge"
        else get_nodes_query(index, "$query", 0, provider)
    )
    return (
        f"{call} YIELD {item}, score WITH {item}, score WHERE {item}.uuid IN $uuids "
        f"RETURN {item}.uuid AS uuid, score"
    )


async def _index_scored(
    driver: GraphDriver, text: str, group_ids: list[str] | None, hits: list[SearchHit], limit: int
) -> list[SearchHit]:
    """The hits of a full-text search with the index's own relevance as their score. Graphiti
    read them from the index's first 2 x limit rows (before its filters), so asking the same
    index with the same text and a wider window scores them all; a hit the index no longer
    yields (its record changed in between) is left out, not given a made-up score."""
    query = fulltext_query(text, group_ids, driver)
    if not hits or not query:
        return hits
    scored: list[SearchHit] = []
    for kind in _INDEX:
        of_kind = [hit for hit in hits if hit.kind == kind]
        if not of_kind:
            continue
        records, _, _ = await driver.execute_query(
            _score_query(kind, driver.provider),
            query=query,
            uuids=[hit.uuid for hit in of_kind],
            limit=4 * limit,
            routing_="r",
        )
        scores = {str(r["uuid"]): float(r["score"]) for r in records}
        scored.extend(replace(hit, score=scores[hit.uuid]) for hit in of_kind if hit.uuid in scores)
    return scored


def _hits(results: SearchResults) -> Iterable[SearchHit]:
    for node, node_score in _scored(results.nodes, results.node_reranker_scores):
        label = next((lab for lab in node.labels if lab != "Entity"), "Entity")
        yield SearchHit("node", label, node.name, node.uuid, node.group_id, node_score)
    for edge, edge_score in _scored(results.edges, results.edge_reranker_scores):
        yield SearchHit("edge", edge.name, edge.fact, edge.uuid, edge.group_id, edge_score)
    for episode, episode_score in _scored(results.episodes, results.episode_reranker_scores):
        yield SearchHit("episode", "Episodic", episode.name, episode.uuid, episode.group_id, episode_score)


def _scored[T](items: Sequence[T], scores: Sequence[float]) -> Iterable[tuple[T, float]]:
    """Each item with its reranker score (Graphiti's RRF gives one per item, in order)."""
    for item, score in zip(items, scores, strict=True):
        yield item, float(score)
