"""Write a session's graph records: one atomic Cypher statement per session, no LLM.

A single statement is atomic on both Neo4j and FalkorDB, so a failure leaves either the whole
session or none of it. Labels and relation names come from the fixed sets in `schema`; all values
travel as parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode

from graphiti_session_tracking.summary import EnhancedSessionSummary

from .backends import Backend
from .mapping import SessionGraph, iso_time, map_summary, resolve_group_id
from .schema import SHARED_LABELS, Label


@dataclass(frozen=True)
class WriteResult:
    session_id: str
    group_id: str
    status: str  # "created", "replaced" or "unchanged"
    summary_version: int
    nodes_written: int
    edges_written: int


def _param(label: Label) -> str:
    return f"nodes_{label.value}"


def _entity_sections() -> list[str]:
    sections = []
    for label in Label:
        if label in SHARED_LABELS:
            # Shared by the group's sessions: keep the first creation time, never remove on replace.
            body = (
                f"MERGE (n:Entity {{uuid: row.uuid}}) ON CREATE SET n.created_at = row.created_at "
                f"SET n:{label.value} SET n += row.props"
            )
        else:
            body = f"MERGE (n:Entity {{uuid: row.uuid}}) SET n:{label.value} SET n = row.props"
        sections.append(f"UNWIND ${_param(label)} AS row {body}")
    return sections


_REMOVE_STALE = [
    # This session's own records that the new summary no longer has.
    "OPTIONAL MATCH (:Episodic {uuid: $episode_uuid})-[:MENTIONS]->(old:Entity) "
    "WHERE NOT old.uuid IN $entity_uuids AND NOT old:File AND NOT old:Tool DETACH DELETE old",
    "OPTIONAL MATCH (:Episodic {uuid: $episode_uuid})-[m:MENTIONS]->(old:Entity) "
    "WHERE NOT old.uuid IN $entity_uuids DELETE m",
    "OPTIONAL MATCH (ep:Episodic {uuid: $episode_uuid}) UNWIND coalesce(ep.entity_edges, []) AS eid "
    "OPTIONAL MATCH ()-[r:RELATES_TO {uuid: eid}]->() WHERE NOT eid IN $edge_uuids DELETE r",
]

_WRITE = [
    "MERGE (ep:Episodic {uuid: $episode.uuid}) SET ep = $episode",
    *_entity_sections(),
    "UNWIND $edges AS row MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target}) "
    "MERGE (a)-[r:RELATES_TO {uuid: row.uuid}]->(b) SET r = row.props",
    "UNWIND $mentions AS row MATCH (ep:Episodic {uuid: row.source}) MATCH (n:Entity {uuid: row.target}) "
    "MERGE (ep)-[r:MENTIONS {uuid: row.uuid}]->(n) SET r = row.props",
]


def _chain(sections: list[str]) -> str:
    """Join sections into one statement; `WITH count(*)` keeps one row flowing past empty lists."""
    parts = [f"{section} WITH count(*) AS _{i}" for i, section in enumerate(sections)]
    return " ".join(parts) + " RETURN 1 AS done"


INSERT_QUERY = _chain(_WRITE)
REPLACE_QUERY = _chain([*_REMOVE_STALE, *_WRITE])
EXISTING_QUERY = (
    "MATCH (s:Entity {uuid: $uuid}) RETURN s.content_hash AS content_hash, s.summary_version AS version"
)


class SessionGraphWriter:
    """Ingest summaries into an open backend; idempotent and atomic per session."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def ingest(self, summary: EnhancedSessionSummary, group_id: str | None = None) -> WriteResult:
        group = resolve_group_id(summary, group_id)
        driver = await self.backend.driver_for(group)
        graph = map_summary(
            summary, group, previous_session_uuid=await _previous_session(driver, summary, group)
        )
        attrs = graph.session_node.attributes
        records, _, _ = await driver.execute_query(EXISTING_QUERY, uuid=graph.session_node.uuid)
        existing = records[0] if records else None
        if existing is not None and existing["content_hash"] == attrs["content_hash"]:
            return WriteResult(summary.session_id, group, "unchanged", int(existing["version"] or 1), 0, 0)
        version = int(existing["version"] or 0) + 1 if existing is not None else 1
        attrs["summary_version"] = version
        query = REPLACE_QUERY if existing is not None else INSERT_QUERY
        await _run(driver, query, _params(graph, self.backend.kind))
        return WriteResult(
            summary.session_id,
            group,
            "replaced" if existing is not None else "created",
            version,
            graph.node_count + 1,
            graph.edge_count,
        )


PREVIOUS_SESSION_QUERY = (
    "MATCH (p:Entity:Session) WHERE p.group_id = $group_id AND p.session_id <> $session_id "
    "AND p.started_at < $started_at RETURN p.uuid AS uuid ORDER BY p.started_at DESC LIMIT 1"
)


async def _previous_session(
    driver: GraphDriver, summary: EnhancedSessionSummary, group_id: str
) -> str | None:
    """The project's session that started last before this one (what this one CONTINUES)."""
    if summary.started_at is None:
        return None
    started = iso_time(summary.started_at)
    records, _, _ = await driver.execute_query(
        PREVIOUS_SESSION_QUERY, group_id=group_id, session_id=summary.session_id, started_at=started
    )
    return str(records[0]["uuid"]) if records else None


async def _run(driver: GraphDriver, query: str, params: dict[str, Any]) -> None:
    await driver.execute_query(query, **params)


def _time(value: datetime | None, kind: str) -> Any:
    """Neo4j stores Graphiti's timestamps as DateTime; FalkorDB as ISO strings."""
    if value is None:
        return None
    return value if kind == "neo4j" else value.isoformat()


def _node_props(node: EntityNode, kind: str) -> dict[str, Any]:
    props: dict[str, Any] = {
        "uuid": node.uuid,
        "name": node.name,
        "group_id": node.group_id,
        "summary": node.summary,
        "created_at": _time(node.created_at, kind),
    }
    for key, value in node.attributes.items():
        props.setdefault(key, value)
    return props


def _edge_props(edge: EntityEdge, kind: str) -> dict[str, Any]:
    return {
        "uuid": edge.uuid,
        "name": edge.name,
        "fact": edge.fact,
        "group_id": edge.group_id,
        "episodes": edge.episodes,
        "created_at": _time(edge.created_at, kind),
        "valid_at": _time(edge.valid_at, kind),
    }


def _mention_props(edge: EpisodicEdge, kind: str) -> dict[str, Any]:
    return {"uuid": edge.uuid, "group_id": edge.group_id, "created_at": _time(edge.created_at, kind)}


def _params(graph: SessionGraph, kind: str) -> dict[str, Any]:
    episode = graph.episode
    nodes = [graph.session_node, *graph.entities]
    params: dict[str, Any] = {
        "episode_uuid": episode.uuid,
        "episode": {
            "uuid": episode.uuid,
            "name": episode.name,
            "group_id": episode.group_id,
            "source": episode.source.value,
            "source_description": episode.source_description,
            "content": episode.content,
            "entity_edges": episode.entity_edges,
            "created_at": _time(episode.created_at, kind),
            "valid_at": _time(episode.valid_at, kind),
        },
        "entity_uuids": [n.uuid for n in nodes],
        "edge_uuids": [e.uuid for e in graph.edges],
        "edges": [
            {
                "uuid": e.uuid,
                "source": e.source_node_uuid,
                "target": e.target_node_uuid,
                "props": _edge_props(e, kind),
            }
            for e in graph.edges
        ],
        "mentions": [
            {
                "uuid": m.uuid,
                "source": m.source_node_uuid,
                "target": m.target_node_uuid,
                "props": _mention_props(m, kind),
            }
            for m in graph.mentions
        ],
    }
    for label in Label:
        params[_param(label)] = [
            {"uuid": n.uuid, "created_at": _time(n.created_at, kind), "props": _node_props(n, kind)}
            for n in nodes
            if n.labels[0] == label.value
        ]
    return params
