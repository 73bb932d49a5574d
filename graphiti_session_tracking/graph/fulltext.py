"""Full-text search over the indexes Graphiti builds, one query a graph, with no graphiti-core import.

Graphiti's own search (graphiti_core.search) asks each index in its own query and keeps only a
hit's rank, so scoring its hits took a second query per index; and importing any part of
graphiti-core costs 0.5 s (its package imports the OpenAI and Neo4j clients), more than a whole
search at the prompt should take. Here the three indexes Graphiti creates — entity names and
summaries, relation names and facts, episode contents — are asked at once (`UNION ALL`), each hit
with the index's own relevance (RediSearch's score on FalkorDB, Lucene's BM25 on Neo4j). The query
text is built as Graphiti builds it (its words, OR-ed; on FalkorDB without RediSearch's default
stop words), so a hit scores the same either way: tests/graph/test_search.py compares the two.

Graphiti's search still runs where it adds something: with a configured embedder
(`graphiti_search.py`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .dialect import Dialect
from .schema import SEARCH_TYPES, Label

if TYPE_CHECKING:
    from .backends import Read

# RediSearch's default stop words (its documentation's list), which Graphiti leaves out of a
# FalkorDB query: a query of only these would match nothing.
_STOP_WORDS = frozenset(
    [
        "a",
        "is",
        "the",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
# Characters RediSearch and Lucene read as syntax or as word separators: a word is what lies between.
_WORD = re.compile(r"[^\s,.<>{}\[\]\"':;!@#$%^&*()\-+=~?|/\\`]+")
_LUCENE_SPECIAL = re.compile(r"([+\-&|!(){}\[\]^\"~*?:\\/])")
# A longer question is cut to its first words (Graphiti answers nothing past 128).
MAX_WORDS = 64


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


def query_text(text: str, group_ids: list[str] | None, dialect: Dialect) -> str:
    """The index's query for `text` within `group_ids` (None: every group); '' when it has no word."""
    if dialect.name == "neo4j":
        # Lucene's analyzer splits the words itself (`Cargo.toml` is one word to it); its syntax
        # is escaped, and lowercase keeps AND / OR / NOT words (the analyzer lowercases anyway).
        terms = " ".join(_LUCENE_SPECIAL.sub(r"\\\1", w.lower()) for w in text.split()[:MAX_WORDS])
        if not terms:
            return ""
        groups = " OR ".join(f'group_id:"{g}"' for g in group_ids or [])
        return f"({groups}) AND ({terms})" if groups else f"({terms})"
    kept = [w for w in _WORD.findall(text) if w.lower() not in _STOP_WORDS][:MAX_WORDS]
    if not kept:
        return ""
    # Group ids are [A-Za-z0-9_]: RediSearch wants the underscore escaped in a tag.
    groups = "|".join('"' + g.replace("_", "\\_") + '"' for g in group_ids or [])
    terms = " | ".join(kept)
    return f"(@group_id:{groups}) ({terms})" if groups else f"({terms})"


def _statement(dialect: Dialect, kind: str | None) -> str:
    """The Cypher asking each index wanted for `kind` (None: all three), best hits first."""
    label = SEARCH_TYPES[kind][0] if kind is not None else None
    neo4j = dialect.name == "neo4j"
    window = "{limit: $window}"

    def nodes(index: str, falkor_label: str) -> str:
        if neo4j:
            return f'CALL db.index.fulltext.queryNodes("{index}", $query, {window}) YIELD node AS n, score '
        return f"CALL db.idx.fulltext.queryNodes('{falkor_label}', $query) YIELD node AS n, score "

    where_group = "($group_ids IS NULL OR {0}.group_id IN $group_ids)"
    tail = "ORDER BY score DESC LIMIT $limit"
    parts: list[str] = []
    if kind is None or label is not None:
        only = f" AND n:{Label(label).value}" if label is not None else ""
        parts.append(
            nodes("node_name_and_summary", "Entity")
            + f"WITH n, score WHERE {where_group.format('n')}{only} "
            + "RETURN 'node' AS kind, [l IN labels(n) WHERE l <> 'Entity'] AS types, n.name AS text, "
            + f"n.uuid AS uuid, n.group_id AS group_id, score {tail}"
        )
        call = (
            f'CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {window}) '
            if neo4j
            else "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $query) "
        )
        only = " AND e.name IN $relations" if label is not None else ""
        parts.append(
            call
            + f"YIELD relationship AS e, score WITH e, score WHERE {where_group.format('e')}{only} "
            + "RETURN 'edge' AS kind, [e.name] AS types, e.fact AS text, e.uuid AS uuid, "
            + f"e.group_id AS group_id, score {tail}"
        )
    if kind is None or label is None:
        parts.append(
            nodes("episode_content", "Episodic")
            + f"WITH n, score WHERE {where_group.format('n')} "
            + "RETURN 'episode' AS kind, ['Episodic'] AS types, n.name AS text, n.uuid AS uuid, "
            + f"n.group_id AS group_id, score {tail}"
        )
    return " UNION ALL ".join(parts)


async def search(
    read: Read, dialect: Dialect, text: str, group_ids: list[str] | None, limit: int, kind: str | None = None
) -> list[SearchHit]:
    """Up to `limit` hits of each index (entities, relations, episodes) for `text` in one graph,
    each scored by its index; `kind` narrows to one label and its relations (SEARCH_TYPES)."""
    query = query_text(text, group_ids, dialect)
    if not query:
        return []
    relations = [r.value for r in SEARCH_TYPES[kind][1]] if kind is not None else []
    # Neo4j's index yields its best `window` before the label and group filters: ask for more.
    window = limit * (4 if kind is not None else 2)
    params = {
        "query": query,
        "group_ids": group_ids,
        "limit": limit,
        "window": window,
        "relations": relations,
    }
    rows = await read(_statement(dialect, kind), params)
    return [
        SearchHit(
            str(r["kind"]),
            str(r["types"][0]) if r["types"] else "Entity",
            str(r["text"] or ""),
            str(r["uuid"]),
            str(r["group_id"]),
            float(r["score"]),
        )
        for r in rows
    ]
