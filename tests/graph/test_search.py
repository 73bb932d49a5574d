"""Search on both backends: our `search_sessions`, and Graphiti's own search and episode retrieval
over what the writer stored (the proof that the graph contract holds for Graphiti's readers)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fake_openai import FakeOpenAI
from graph.test_queries import API, APP, S1, S2, S3, SUMMARIES, summary
from graphiti_core import Graphiti
from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from graphiti_core.llm_client import LLMConfig, OpenAIClient
from graphiti_core.nodes import EpisodeType
from graphiti_core.search.search_config_recipes import NODE_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import fulltext_query

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.dialect import FALKORDB, NEO4J
from graphiti_session_tracking.graph.fulltext import MAX_WORDS, query_text
from graphiti_session_tracking.graph.schema import EPISODE_SOURCE_DESCRIPTION
from graphiti_session_tracking.graph.search import SearchError, SearchHit, search_sessions
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.summary import EnhancedSessionSummary

STRONG = "Use a Redis cache for tokens"  # both words of "Redis cache", in a short name
WEAK = "Keep the legacy session table in Postgres while the slow Redis migration runs"  # one word


def redis_sessions(app: str, api: str) -> list[EnhancedSessionSummary]:
    """Two sessions of `app` (a strong and a weak hit for "Redis cache") and one of `api`."""
    day = datetime(2026, 3, 1, tzinfo=UTC)
    return [
        summary(
            "dddd4444-0000-4000-8000-000000000004",
            app,
            day,
            objective="Speed up token checks",
            key_decisions=[{"decision": STRONG, "rationale": "lookups hit the cache"}],
        ),
        summary(
            "eeee5555-0000-4000-8000-000000000005",
            app,
            day.replace(day=2),
            objective="Plan the storage move",
            key_decisions=[{"decision": WEAK, "rationale": "the move takes weeks"}],
        ),
        summary(
            "ffff6666-0000-4000-8000-000000000006",
            api,
            day.replace(day=3),
            objective="Put a cache in front of the router",
            key_decisions=[{"decision": "Put a Redis cache in front of the router", "rationale": "p99"}],
        ),
    ]


def embedder_for(fake: FakeOpenAI) -> OpenAIEmbedder:
    return OpenAIEmbedder(OpenAIEmbedderConfig(api_key="k", base_url=fake.base_url, embedding_dim=16))


def kinds(hits: list[SearchHit]) -> set[tuple[str, str, str, str]]:
    return {(h.kind, h.type, h.text, h.group_id) for h in hits}


async def test_full_text_search_over_every_group(backend: Backend) -> None:
    await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    hits = await search_sessions(backend, "Redis", limit=20)
    assert kinds(hits) == {
        ("node", "Decision", "Keep sessions in Redis", APP),
        (
            "edge",
            "MADE_DECISION",
            "Session bbbb2222 decided: Keep sessions in Redis because Postgres lookups were slow",
            APP,
        ),
        ("episode", "Episodic", "Session bbbb2222: Build the session store", APP),
    }
    assert all(h.score is not None and h.score > 0 for h in hits) and len({h.uuid for h in hits}) == 3
    # Both projects answer when no group is given; one when it is.
    assert {h.group_id for h in await search_sessions(backend, "router JWT", limit=50)} == {APP, API}
    assert {h.group_id for h in await search_sessions(backend, "router JWT", group_id=API, limit=50)} == {API}
    assert await search_sessions(backend, "Redis", group_id=API) == []
    assert await search_sessions(backend, "   ") == []


async def test_search_by_type_and_limit(backend: Backend) -> None:
    await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    decisions = await search_sessions(backend, "router Redis RS256", kind="decision", limit=20)
    assert {(h.kind, h.type, h.text) for h in decisions} >= {
        ("node", "Decision", "Keep sessions in Redis"),
        ("node", "Decision", "Use chi as the router"),
        ("node", "Decision", "Sign JWTs with RS256 in src/auth.py"),
    }
    assert {h.type for h in decisions} == {"Decision", "MADE_DECISION"}
    errors = await search_sessions(backend, "panic", kind="error")
    assert {(h.kind, h.type) for h in errors} == {("node", "ErrorResolution"), ("edge", "RESOLVED_ERROR")}
    episodes = await search_sessions(backend, "panic", kind="episode")  # the summary JSON is searched
    assert [(h.kind, h.text) for h in episodes] == [("episode", "Session cccc3333: Fix the router panic")]
    assert len(await search_sessions(backend, "Fix", limit=2)) == 2
    with pytest.raises(SearchError, match="unknown type"):
        await search_sessions(backend, "x", kind="nope")


async def test_full_text_scores_are_the_index_relevance_best_first(backend: Backend) -> None:
    """A full-text hit scores what the database's full-text index says of it (not its rank: the
    best hit of every list used to score 1.0): a name holding both words outscores one holding one."""
    await SessionGraphWriter(backend).ingest_many(redis_sessions("/work/app", "/work/api"))
    app = GroupId.for_project("/work/app")
    hits = await search_sessions(backend, "Redis cache", group_id=app, kind="decision", limit=20)
    nodes = {h.text: h.score for h in hits if h.kind == "node"}
    assert set(nodes) == {STRONG, WEAK}
    assert nodes[STRONG] > nodes[WEAK] > 0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    order = [h.text for h in hits]
    assert order.index(STRONG) < order.index(WEAK) and len({h.score for h in hits}) > 1

    # The very score the index yields for that query, asked directly.
    driver = await backend.driver_for(app)
    index = "'Entity'" if backend.graph_per_group else '"node_name_and_summary"'
    procedure = "db.idx.fulltext.queryNodes" if backend.graph_per_group else "db.index.fulltext.queryNodes"
    records, _, _ = await driver.execute_query(
        f"CALL {procedure}({index}, $query) YIELD node, score RETURN node.name AS name, score",
        query=fulltext_query("Redis cache", [app], driver),
    )
    assert {r["name"]: r["score"] for r in records if r["name"] in nodes} == pytest.approx(nodes)

    # Every group: each hit keeps its own index score, the merged list stays best first.
    every = await search_sessions(backend, "Redis cache", limit=20)
    assert {h.group_id for h in every} == {app, GroupId.for_project("/work/api")}
    assert [h.score for h in every] == sorted((h.score for h in every), reverse=True)


async def test_hybrid_search_with_an_embedder(backend: Backend, fake_openai: FakeOpenAI) -> None:
    """With an embedder the query is embedded and cosine similarity joins BM25: an exact name is
    found by both methods, so its fused score is 1 + 1 (reciprocal rank 1 in each)."""
    embedder = embedder_for(fake_openai)
    await SessionGraphWriter(backend, embedder=embedder).ingest_many(SUMMARIES)
    before = len(fake_openai.calls("/embeddings"))
    hits = await search_sessions(backend, "Keep sessions in Redis", kind="decision", embedder=embedder)
    node = next(h for h in hits if h.kind == "node")
    assert (node.text, node.score) == ("Keep sessions in Redis", 2.0)
    assert len(fake_openai.calls("/embeddings")) > before


async def test_graphiti_own_search_and_episodes_see_the_records(
    backend: Backend, fake_openai: FakeOpenAI
) -> None:
    embedder = embedder_for(fake_openai)
    await SessionGraphWriter(backend, embedder=embedder).ingest_many(SUMMARIES)
    config = LLMConfig(api_key="k", base_url=fake_openai.base_url)
    graphiti = Graphiti(
        graph_driver=backend.driver,
        llm_client=OpenAIClient(config),
        embedder=embedder,
        cross_encoder=OpenAIRerankerClient(config),
    )

    results = await graphiti.search_(
        "Redis router",
        config=NODE_HYBRID_SEARCH_RRF,
        group_ids=[APP],
        search_filter=SearchFilters(node_labels=["Decision"]),
    )
    assert [(n.name, n.group_id, n.attributes.get("session_id")) for n in results.nodes] == [
        ("Keep sessions in Redis", APP, S2)
    ]
    assert "Decision" in results.nodes[0].labels
    api_results = await graphiti.search_(
        "router",
        config=NODE_HYBRID_SEARCH_RRF,
        group_ids=[API],
        search_filter=SearchFilters(node_labels=["Decision"]),
    )
    assert [n.name for n in api_results.nodes] == ["Use chi as the router"]

    edges = await graphiti.search(
        "JWT_EXPIRY", group_ids=[APP], search_filter=SearchFilters(edge_types=["CHANGED_CONFIG"])
    )
    assert {e.fact for e in edges} == {
        "Session aaaa1111 changed JWT_EXPIRY in .env from 60 to 3600 because seconds",
        "Session bbbb2222 changed JWT_EXPIRY in .env from 3600 to 7200",
    }

    episodes = await graphiti.retrieve_episodes(datetime.now(UTC), last_n=10, group_ids=[APP])
    assert [(e.name, e.source, e.source_description) for e in episodes] == [
        ("Session aaaa1111: Fix JWT expiry on login", EpisodeType.json, EPISODE_SOURCE_DESCRIPTION),
        ("Session bbbb2222: Build the session store", EpisodeType.json, EPISODE_SOURCE_DESCRIPTION),
    ]
    assert S1 in episodes[0].content and episodes[1].valid_at == datetime(2026, 1, 20, 10, tzinfo=UTC)
    api_episodes = await graphiti.retrieve_episodes(datetime.now(UTC), last_n=10, group_ids=[API])
    assert [e.content.count(S3) for e in api_episodes] == [1]


# One group per call: on Neo4j, graphiti-core's full-text query mis-groups several group ids
# (`group_id:"a" OR group_id:"b" AND (words)` needs the words only in b), so a record without
# embeddings in the first group is missed. The server's callers pass the group they mean.
@pytest.mark.parametrize(
    ("label", "query", "group", "expected"),
    [
        ("Decision", "Redis", APP, "Keep sessions in Redis"),
        ("ErrorResolution", "panic", API, None),
        ("ConfigChange", "JWT_EXPIRY", APP, None),
        ("Session", "session store", APP, None),
    ],
)
async def test_the_graphiti_mcp_servers_calls_find_every_record_kind_without_our_embeddings(
    backend: Backend, fake_openai: FakeOpenAI, label: str, query: str, group: str, expected: str | None
) -> None:
    """As the Graphiti MCP server's search_nodes and search_memory_facts call graphiti-core (its
    search config, `SearchFilters(node_labels=…)`, group ids), over sessions written with no
    embedder: the query is embedded by the server, our nodes match by their words."""
    await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    config = LLMConfig(api_key="k", base_url=fake_openai.base_url)
    graphiti = Graphiti(
        graph_driver=backend.driver,
        llm_client=OpenAIClient(config),
        embedder=embedder_for(fake_openai),
        cross_encoder=OpenAIRerankerClient(config),
    )
    nodes = (
        await graphiti.search_(
            query,
            config=NODE_HYBRID_SEARCH_RRF,
            group_ids=[group],
            search_filter=SearchFilters(node_labels=[label]),
        )
    ).nodes
    assert nodes and all(label in n.labels for n in nodes)
    assert all(query.split()[0].lower() in (n.name + n.summary).lower() for n in nodes)
    if expected is not None:
        assert expected in [n.name for n in nodes]
    facts = await graphiti.search(query, group_ids=[group], num_results=10)
    assert facts and any(query.split()[0].lower() in f.fact.lower() for f in facts)
    assert await graphiti.search(query, group_ids=["main"]) == []  # the server's default group holds none


def test_the_index_query_is_the_words_of_the_question() -> None:
    """FalkorDB: RediSearch's words OR-ed, its stop words and syntax left out, the group a tag;
    Neo4j: Lucene splits the words itself, so its syntax is escaped and AND / OR / NOT are words."""
    assert query_text("Why did the Cargo.toml (push) fail?", ["my_app"], FALKORDB) == (
        '(@group_id:"my\\_app") (Why | did | Cargo | toml | push | fail)'
    )
    assert query_text("the of and", None, FALKORDB) == ""
    assert query_text("Cargo.toml AND push:main", ["app"], NEO4J) == (
        '(group_id:"app") AND (cargo.toml and push\\:main)'
    )
    assert query_text("  ", None, NEO4J) == ""
    assert len(query_text(" ".join(f"w{i}" for i in range(200)), None, FALKORDB).split(" | ")) == MAX_WORDS


async def test_a_question_of_only_punctuation_finds_nothing(backend: Backend) -> None:
    await SessionGraphWriter(backend).ingest_many(SUMMARIES)
    assert await search_sessions(backend, "?! -- ()") == []
    assert await search_sessions(backend, "?! -- ()", kind="decision") == []
