"""Our vectors in the graph: where they live, their index, and the nearest ones to a query.

Each embedded record (a Session, Decision, ErrorResolution or ConfigChange) gets one `:GsVector`
node, `{uuid, record: <the entity's uuid>, group_id, kind: <its label>, gs_embedding}` (its own
`uuid`, derived from the record's: a uuid names one node of the graph). Not a property of
the entity itself: graphiti-core returns every entity property as `attributes` (`properties(n)`),
so the upstream Graphiti MCP server would send 256 numbers with every node it finds; and not
`name_embedding` / `fact_embedding`, which its similarity search reads with its own model's
dimension (a different one breaks Neo4j's vector functions). A `:GsVector` is neither `:Entity`
nor `:Episodic`, so graphiti-core never matches it.

Nearest vectors, in Cypher on both backends. FalkorDB: an exact `vec.cosineDistance` scan of the
group's graph (one graph per project, so the scan is bounded by one project's records; its HNSW
vector index, `db.idx.vector.queryNodes`, cost 30% of ingest throughput for no gain at that size,
bench/search_quality.py). Neo4j: `db.index.vector.queryNodes` on one vector index over every
group, or, for given groups, an exact `vector.similarity.cosine` scan of their vectors (an index
answers its top k of the whole database, which a small group could miss).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, uuid5

from .dialect import Dialect
from .local_embedder import DIMENSIONS, PROPERTY

if TYPE_CHECKING:  # the writer's driver; a search reads through the backend's own client
    from graphiti_core.driver.driver import GraphDriver

    from .backends import Read

LABEL = "GsVector"
# Below this cosine a record is not near the question, only the least far: with WordLlama,
# nonsense ("zzqx") stays under 0.14 to everything, a question and its answer measure 0.18 and up
# (bench/search_quality.py); without it, every search would "find" something.
MIN_SIMILARITY = 0.15
NEO4J_INDEX = "gs_embedding"

_FALKOR_DDL = (f"CREATE INDEX FOR (v:{LABEL}) ON (v.record)",)
_NEO4J_DDL = (
    f"CREATE CONSTRAINT gs_vector_record IF NOT EXISTS FOR (v:{LABEL}) REQUIRE v.record IS UNIQUE",
    f"CREATE INDEX gs_vector_group IF NOT EXISTS FOR (v:{LABEL}) ON (v.group_id)",
    f"CREATE VECTOR INDEX {NEO4J_INDEX} IF NOT EXISTS FOR (v:{LABEL}) ON v.{PROPERTY} "
    f"OPTIONS {{indexConfig: {{`vector.dimensions`: {DIMENSIONS}, `vector.similarity_function`: 'cosine'}}}}",
)


def write_section(dialect: Dialect) -> str:
    """The write statement's section that stores the batch's vectors (`$vectors`)."""
    return (
        f"UNWIND $vectors AS row MERGE (v:{LABEL} {{record: row.uuid}}) "
        f"SET v.uuid = row.vector_uuid, v.group_id = row.group_id, v.kind = row.kind, v.{PROPERTY} = {dialect.packed_vector('row.vector')}"
    )


def vector_uuid(record: str) -> str:
    """The `:GsVector` node's own uuid, the same for the same record every time."""
    return str(uuid5(NAMESPACE_URL, f"graphiti-sessions:gs_embedding:{record}"))


# The group's sessions that have no vector (written before the local embedder was on).
MISSING_QUERY = (
    "MATCH (s:Entity:Session) WHERE s.group_id = $group_id AND NOT s.session_id IN $skip "
    f"OPTIONAL MATCH (v:{LABEL} {{record: s.uuid}}) WITH s, v WHERE v IS NULL "
    "RETURN s.session_id AS session_id, s.summary_version AS version LIMIT $limit"
)
# A replaced session's records that its new summary no longer has lose their vectors (before the
# records themselves are deleted, while the episode still MENTIONS them).
REMOVE_STALE = (
    "UNWIND $replaced AS rep MATCH (:Episodic {uuid: rep.episode_uuid})-[:MENTIONS]->(old:Entity) "
    f"WHERE NOT old.uuid IN rep.entity_uuids MATCH (v:{LABEL} {{record: old.uuid}}) DELETE v"
)
# A session moved to another group takes its vectors out of the old one.
REMOVE_SESSIONS = (
    "UNWIND $sessions AS row MATCH (:Episodic {uuid: row.episode})-[:MENTIONS]->(n:Entity) "
    f"MATCH (v:{LABEL} {{record: n.uuid}}) DELETE v"
)


async def ensure_index(driver: GraphDriver, dialect: Dialect) -> None:
    """Create the indexes (the `record` index MERGE needs; Neo4j's vector index) if missing; idempotent."""
    for statement in _NEO4J_DDL if dialect.name == "neo4j" else _FALKOR_DDL:
        await driver.execute_query(statement)


async def has_index(read: Read, dialect: Dialect, known: set[str | None], graph: str | None) -> bool:
    """Whether `graph` holds our vectors' index (none until something was embedded into it).
    `known`: the graphs already seen with it; an index is never dropped, so a long-lived reader
    (the MCP server, the viewer) asks each graph once, not at every search."""
    if graph in known:
        return True
    if dialect.name == "neo4j":
        query = "SHOW VECTOR INDEXES YIELD name WHERE name = $name RETURN count(*) AS n"
    else:
        query = "CALL db.indexes() YIELD label, types WHERE label = $name RETURN count(*) AS n"
    records = await read(query, {"name": NEO4J_INDEX if dialect.name == "neo4j" else LABEL})
    found = bool(records) and int(records[0]["n"]) > 0
    if found:
        known.add(graph)
    return found


@dataclass(frozen=True)
class Nearest:
    """A record near the query: the entity's uuid, label and name, and the cosine similarity."""

    uuid: str
    kind: str
    name: str
    group_id: str
    similarity: float


def _query(dialect: Dialect, scan: bool) -> str:
    # The nearest first, then their entities: looking up the entity of every vector above the
    # floor cost most of a search at 500 sessions a graph.
    entity = (
        "WITH v, similarity WHERE similarity >= $floor WITH v, similarity ORDER BY similarity DESC "
        "LIMIT $limit MATCH (n:Entity {uuid: v.record}) "
        "RETURN n.uuid AS uuid, v.kind AS kind, n.name AS name, n.group_id AS group_id, similarity "
        "ORDER BY similarity DESC"
    )
    kinds = "($kinds IS NULL OR v.kind IN $kinds)"
    if dialect.name != "neo4j":  # FalkorDB: the group's graph; the function gives a distance
        return (
            f"WITH {dialect.packed_vector('$vector')} AS query MATCH (v:{LABEL}) WHERE {kinds} "
            f"WITH v, 1.0 - vec.cosineDistance(v.{PROPERTY}, query) AS similarity {entity}"
        )
    # Neo4j scores (1 + cosine) / 2, for the index and the function alike.
    if scan:
        return (
            f"MATCH (v:{LABEL}) WHERE v.group_id IN $group_ids AND {kinds} "
            f"WITH v, 2.0 * vector.similarity.cosine(v.{PROPERTY}, $vector) - 1.0 AS similarity {entity}"
        )
    return (
        f"CALL db.index.vector.queryNodes('{NEO4J_INDEX}', $k, $vector) YIELD node AS v, score "
        f"WITH v, 2.0 * score - 1.0 AS similarity WHERE {kinds} {entity}"
    )


async def nearest(
    read: Read,
    dialect: Dialect,
    vector: Any,
    limit: int,
    group_ids: list[str] | None = None,
    kinds: list[str] | None = None,
    floor: float = MIN_SIMILARITY,
) -> list[Nearest]:
    """The `limit` records of the graph (of `group_ids` on Neo4j) nearest to `vector` (packed by
    `dialect.pack_vector`, once for every graph a search asks) and at least `floor` similar to it,
    best first. The graph must hold our index (`has_index`)."""
    scan = dialect.name != "neo4j" or group_ids is not None
    # The index answers its k nearest of every kind and group; ask for more when a filter follows.
    k = limit * (4 if kinds or group_ids else 1)
    params: dict[str, Any] = {
        "vector": vector,
        "k": k,
        "limit": limit,
        "kinds": kinds,
        "floor": floor,
    }
    if dialect.name == "neo4j" and scan:
        params["group_ids"] = group_ids
    records = await read(_query(dialect, scan), params)
    return [
        Nearest(str(r["uuid"]), str(r["kind"]), str(r["name"]), str(r["group_id"]), float(r["similarity"]))
        for r in records
    ]
