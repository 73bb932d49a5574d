"""Map an EnhancedSessionSummary to Graphiti's own node and edge models (no LLM, no I/O).

Every uuid is a uuid5 of a stable key, and every timestamp comes from the session itself, so the
same summary always maps to exactly the same nodes, edges and property values.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from graphiti_session_tracking.summary import EnhancedSessionSummary

from .schema import (
    EPISODE_SOURCE_DESCRIPTION,
    Label,
    Relation,
    edge_uuid,
    entity_uuid,
    episode_uuid,
    group_id_for_project,
    mentions_uuid,
    validate_group_id,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAME_LIMIT = 120


@dataclass
class SessionGraph:
    """Everything one session writes: its episode, entities, relations and MENTIONS edges."""

    group_id: str
    episode: EpisodicNode
    session_node: EntityNode
    entities: list[EntityNode] = field(default_factory=list)
    edges: list[EntityEdge] = field(default_factory=list)
    mentions: list[EpisodicEdge] = field(default_factory=list)

    @property
    def node_count(self) -> int:
        return 1 + len(self.entities)

    @property
    def edge_count(self) -> int:
        return len(self.edges) + len(self.mentions)


def content_hash(summary: EnhancedSessionSummary) -> str:
    """Hash of the summary's content: equal hashes mean nothing to write."""
    return hashlib.sha256(summary.model_dump_json(exclude_none=True).encode("utf-8")).hexdigest()


def short_id(session_id: str) -> str:
    return session_id[:8]


def cut(text: str, limit: int = _NAME_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def resolve_group_id(summary: EnhancedSessionSummary, group_id: str | None) -> str:
    if group_id is not None:
        return validate_group_id(group_id)
    return group_id_for_project(summary.project_path or "unknown-project")


def map_summary(summary: EnhancedSessionSummary, group_id: str, summary_version: int = 1) -> SessionGraph:
    """The session's graph records, ready for the writer."""
    when = _aware(summary.ended_at or summary.started_at) or _EPOCH
    ep_uuid = episode_uuid(group_id, summary.session_id)
    sid = short_id(summary.session_id)

    session_attrs: dict[str, Any] = {
        "session_id": summary.session_id,
        "outcome": summary.outcome,
        "objective": summary.objective,
        "primary_activity": summary.activity_vector.primary_activity,
        **{f"activity_{dim}": value for dim, value in summary.activity_vector.to_dict().items()},
        "message_count": summary.message_count,
        "duration_minutes": summary.duration_minutes,
        "started_at": _iso(summary.started_at),
        "ended_at": _iso(summary.ended_at),
        "git_branch": summary.git_branch,
        "project_path": summary.project_path,
        "source_file": summary.session_file,
        "summary_version": summary_version,
        "content_hash": content_hash(summary),
    }
    session_node = EntityNode(
        uuid=entity_uuid(group_id, Label.SESSION, summary.session_id),
        name=cut(summary.objective),
        group_id=group_id,
        labels=[Label.SESSION.value],
        created_at=when,
        summary=f"Session {sid} ({summary.outcome}): {cut(summary.objective, 400)}",
        attributes={k: v for k, v in session_attrs.items() if v is not None},
    )
    graph = SessionGraph(
        group_id=group_id,
        episode=EpisodicNode(
            uuid=ep_uuid,
            name=f"Session {sid}: {cut(summary.objective, 80)}",
            group_id=group_id,
            source=EpisodeType.json,
            source_description=EPISODE_SOURCE_DESCRIPTION,
            content=summary.model_dump_json(exclude_none=True),
            valid_at=when,
            created_at=when,
        ),
        session_node=session_node,
    )

    for path in summary.files_modified or []:
        file_node = _entity(
            graph, Label.FILE, path, name=path, summary=f"File {path}", attributes={"path": path}
        )
        _relate(graph, session_node, Relation.MODIFIED_FILE, file_node, f"Session {sid} modified {path}")

    graph.episode.entity_edges = [edge.uuid for edge in graph.edges]
    for node in [session_node, *graph.entities]:
        graph.mentions.append(
            EpisodicEdge(
                uuid=mentions_uuid(ep_uuid, node.uuid),
                group_id=group_id,
                source_node_uuid=ep_uuid,
                target_node_uuid=node.uuid,
                created_at=when,
            )
        )
    return graph


def _entity(
    graph: SessionGraph,
    label: Label,
    key: str,
    *,
    name: str,
    summary: str,
    attributes: dict[str, Any],
) -> EntityNode:
    node = EntityNode(
        uuid=entity_uuid(graph.group_id, label, key),
        name=cut(name),
        group_id=graph.group_id,
        labels=[label.value],
        created_at=graph.episode.valid_at,
        summary=summary,
        attributes=attributes,
    )
    if all(existing.uuid != node.uuid for existing in graph.entities):
        graph.entities.append(node)
    return node


def _relate(
    graph: SessionGraph, source: EntityNode, relation: Relation, target: EntityNode, fact: str
) -> None:
    uuid = edge_uuid(graph.group_id, relation, source.uuid, target.uuid)
    if any(edge.uuid == uuid for edge in graph.edges):
        return
    graph.edges.append(
        EntityEdge(
            uuid=uuid,
            group_id=graph.group_id,
            source_node_uuid=source.uuid,
            target_node_uuid=target.uuid,
            name=relation.value,
            fact=fact,
            episodes=[graph.episode.uuid],
            created_at=graph.episode.valid_at,
            valid_at=graph.episode.valid_at,
        )
    )


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _iso(value: datetime | None) -> str | None:
    aware = _aware(value)
    return aware.isoformat() if aware else None
