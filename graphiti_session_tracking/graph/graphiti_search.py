"""Graphiti's hybrid search, for a configured OpenAI-compatible embedder: BM25 plus cosine
similarity on `name_embedding` / `fact_embedding`, fused by Graphiti per kind and graph (RRF:
the sum of 1/rank over the two methods). Imported only then: graphiti-core costs 0.5 s to import.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.embedder.client import EmbedderClient
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
from graphiti_core.tracer import NoOpTracer
from pydantic import BaseModel

from .fulltext import SearchHit
from .schema import SEARCH_TYPES


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


def _never(what: str) -> NoReturn:
    raise RuntimeError(f"graphiti-sessions search does not use {what}; Graphiti asked for one")


def search_config(limit: int, nodes: bool = True, edges: bool = True, episodes: bool = True) -> SearchConfig:
    """BM25 and cosine similarity on entities and relations, BM25 on episodes, RRF on each."""
    return SearchConfig(
        node_config=NodeSearchConfig(
            search_methods=[NodeSearchMethod.bm25, NodeSearchMethod.cosine_similarity],
            reranker=NodeReranker.rrf,
        )
        if nodes
        else None,
        edge_config=EdgeSearchConfig(
            search_methods=[EdgeSearchMethod.bm25, EdgeSearchMethod.cosine_similarity],
            reranker=EdgeReranker.rrf,
        )
        if edges
        else None,
        episode_config=(
            EpisodeSearchConfig(search_methods=[EpisodeSearchMethod.bm25], reranker=EpisodeReranker.rrf)
            if episodes
            else None
        ),
        limit=limit,
    )


async def hybrid_hits(
    driver: GraphDriver,
    embedder: EmbedderClient,
    text: str,
    group_ids: list[str] | None,
    limit: int,
    kind: str | None,
) -> list[SearchHit]:
    """Graphiti's hybrid search over one graph (of `group_ids` on Neo4j), scored by its RRF."""
    clients = GraphitiClients(
        driver=driver,
        llm_client=_UnusedLLMClient(),
        embedder=embedder,
        cross_encoder=_UnusedCrossEncoder(),
        tracer=NoOpTracer(),
    )
    hits: list[SearchHit] = []
    for config, search_filter in _plans(kind, limit):
        results = await graphiti_search(clients, text, group_ids, config, search_filter, driver=driver)
        hits.extend(_hits(results))
    return hits


def _plans(kind: str | None, limit: int) -> list[tuple[SearchConfig, SearchFilters]]:
    """One Graphiti search per filter: a label filter on edges would need it on both endpoints,
    so entities and relations of one type are searched separately."""
    if kind is None:
        return [(search_config(limit), SearchFilters())]
    label, relations = SEARCH_TYPES[kind]
    if label is None:
        return [(search_config(limit, nodes=False, edges=False), SearchFilters())]
    return [
        (search_config(limit, edges=False, episodes=False), SearchFilters(node_labels=[label.value])),
        (
            search_config(limit, nodes=False, episodes=False),
            SearchFilters(edge_types=[r.value for r in relations]),
        ),
    ]


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
