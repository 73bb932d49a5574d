"""Seed a graph the way the old session-tracking module left it, and dump a whole database."""

from __future__ import annotations

import uuid as uuidlib
from datetime import datetime
from pathlib import Path
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from graphiti_session_tracking.graph.backends import Backend, _cancel_init_task

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy"


async def legacy_driver(backend: Backend, group_id: str) -> GraphDriver:
    """Where the old module's Graphiti wrote a group: the one Neo4j database, or (FalkorDB) the
    graph named after the group, whatever characters it has."""
    if not backend.graph_per_group:
        return backend.driver
    driver = backend.driver.clone(database=group_id)
    await _cancel_init_task(driver)
    return driver


async def add_legacy_episode(
    backend: Backend,
    group_id: str,
    *,
    name: str,
    content: str,
    valid_at: datetime,
    uuid: str,
    entities: list[str] = (),  # type: ignore[assignment]
    description: str = "Session handoff summary with 2 completed tasks, 0 blocked items, and 2 files modified",
) -> dict[str, list[str]]:
    """An old episode as Graphiti's add_episode stored it: the episode, the entities extracted
    from it, MENTIONS edges to them and a RELATES_TO fact between the first two."""
    driver = await legacy_driver(backend, group_id)
    episode = EpisodicNode(
        uuid=uuid,
        name=name,
        group_id=group_id,
        source=EpisodeType.text,
        source_description=description,
        content=content,
        valid_at=valid_at,
        created_at=valid_at,
    )
    nodes = [
        EntityNode(
            uuid=_derived(uuid, "entity", index),
            name=entity,
            group_id=group_id,
            labels=["Entity"],
            summary=f"{entity} was mentioned in {name}",
            created_at=valid_at,
            name_embedding=[0.25, 0.5, 0.125, 1.0],
        )
        for index, entity in enumerate(entities)
    ]
    facts = []
    if len(nodes) >= 2:
        facts.append(
            EntityEdge(
                uuid=_derived(uuid, "fact", 0),
                group_id=group_id,
                source_node_uuid=nodes[0].uuid,
                target_node_uuid=nodes[1].uuid,
                name="RELATED_TO",
                fact=f"{nodes[0].name} relates to {nodes[1].name}",
                episodes=[uuid],
                created_at=valid_at,
                valid_at=valid_at,
                fact_embedding=[0.5, 0.5, 0.25, 0.75],
            )
        )
    episode.entity_edges = [f.uuid for f in facts]
    await episode.save(driver)
    for node in nodes:
        await node.save(driver)
    for fact in facts:
        await fact.save(driver)
    mentions = [
        EpisodicEdge(
            uuid=_derived(uuid, "mentions", index),
            group_id=group_id,
            source_node_uuid=uuid,
            target_node_uuid=node.uuid,
            created_at=valid_at,
        )
        for index, node in enumerate(nodes)
    ]
    for mention in mentions:
        await mention.save(driver)
    return {
        "nodes": [uuid, *(n.uuid for n in nodes)],
        "edges": [*(f.uuid for f in facts), *(m.uuid for m in mentions)],
    }


def _derived(episode: str, kind: str, index: int) -> str:
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, f"{episode}/{kind}/{index}"))


async def dump_database(backend: Backend) -> dict[str, Any]:
    """Every node and edge of the database (every FalkorDB graph), with all properties, by uuid."""
    graphs: list[str] = [""]
    if backend.graph_per_group:
        graphs = sorted(await backend.driver.client.list_graphs())  # type: ignore[attr-defined]
    nodes: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    for graph in graphs:
        driver = await legacy_driver(backend, graph) if graph else backend.driver
        rows, _, _ = await driver.execute_query(
            "MATCH (n) RETURN n.uuid AS uuid, labels(n) AS labels, properties(n) AS props"
        )
        for row in rows:
            # The writer's per-group lock node (Neo4j) has no uuid: keyed by its group.
            key = f"{graph}/{row['uuid'] or ':'.join(row['labels']) + ':' + str(row['props'].get('group'))}"
            nodes[key] = {"labels": sorted(row["labels"]), "props": _plain(row["props"])}
        rows, _, _ = await driver.execute_query(
            "MATCH (a)-[r]->(b) RETURN r.uuid AS uuid, type(r) AS type, a.uuid AS src, b.uuid AS dst, "
            "properties(r) AS props"
        )
        for row in rows:
            edges[f"{graph}/{row['uuid']}"] = {
                "type": row["type"],
                "src": row["src"],
                "dst": row["dst"],
                "props": _plain(row["props"]),
            }
    return {"nodes": nodes, "edges": edges}


def _plain(props: dict[str, Any]) -> dict[str, str]:
    return {k: repr(v) for k, v in sorted(props.items())}


def legacy_part(dump: dict[str, Any], uuids: dict[str, list[str]]) -> dict[str, Any]:
    """The legacy nodes and edges of a dump, by uuid (whatever graph they are in)."""
    return {
        "nodes": {k: v for k, v in dump["nodes"].items() if k.split("/", 1)[1] in uuids["nodes"]},
        "edges": {k: v for k, v in dump["edges"].items() if k.split("/", 1)[1] in uuids["edges"]},
    }
