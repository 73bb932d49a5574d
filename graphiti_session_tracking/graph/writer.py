"""Write sessions' graph records in batches: one atomic Cypher statement per batch, no LLM.

A batch (up to `batch_size` sessions of one group, and BATCH_RECORDS records) costs three round
trips: the stored content hashes, the group's session times (for CONTINUES), and one write
statement. A single statement is atomic on both Neo4j and FalkorDB, so a failure leaves each
session either wholly written or not at all. Labels and relation names come from the fixed sets
in `schema`; all values travel as parameters. With an embedder, names and facts are embedded in
one request per batch; with the local embedder, each session, decision, error and setting gets a
vector of its own (`vectors.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from itertools import pairwise
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.nodes import EntityNode

from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.summary import EnhancedSessionSummary
from graphiti_session_tracking.summary.redaction import redact_summary

from . import vectors
from .backends import Backend, BackendLost, is_connection_loss
from .dialect import Dialect
from .history import (
    DECISIONS_OF_QUERY,
    ERRORS_OF_QUERY,
    HISTORY_SECTIONS,
    OLD_HISTORY_QUERY,
    History,
    seen_before_edges,
    supersedes_edges,
    unwritten,
)
from .local_embedder import LocalEmbedder
from .mapping import SessionGraph, content_hash, continues_edge, map_summary
from .schema import (
    SHARED_LABELS,
    Label,
    Relation,
    entity_uuid,
    episode_uuid,
    iso_time,
    resolve_group_id,
)

DEFAULT_BATCH_SIZE = 200
# A batch's statement carries every row of its sessions: a batch stops at this many records
# (decisions, errors, settings, files, commits and their files, tools, discoveries), so that fifty
# long sessions of one project cost the memory of a few ordinary batches, not of one fifty times
# their size.
BATCH_RECORDS = 1000


@dataclass(frozen=True)
class WriteResult:
    session_id: str
    group_id: str
    status: str  # "created", "replaced", "unchanged" or "moved" (taken out of the groups in moved_from)
    summary_version: int
    nodes_written: int
    edges_written: int
    moved_from: list[str] = field(default_factory=list)


# A session's summary as it was written: what its vectors are made from when they are made later.
EPISODE_CONTENT_QUERY = (
    "MATCH (e:Episodic) WHERE e.uuid IN $uuids RETURN e.uuid AS uuid, e.content AS content"
)


def _param(label: Label) -> str:
    return f"nodes_{label.value}"


def _entity_sections(dialect: Dialect) -> list[str]:
    vector = dialect.vector("row.embedding")
    sections = []
    for label in Label:
        if label in SHARED_LABELS:
            # Shared by the group's sessions, never removed on replace; created_at stays the
            # earliest session's, whatever order the sessions arrive in.
            body = (
                f"MERGE (n:Entity {{uuid: row.uuid}}) WITH n, row, n.created_at AS before "
                f"SET n:{label.value} SET n += row.props SET n.created_at = CASE WHEN before IS NULL "
                "OR row.created_at < before THEN row.created_at ELSE before END"
            )
        else:
            body = f"MERGE (n:Entity {{uuid: row.uuid}}) SET n:{label.value} SET n = row.props"
        body += f" FOREACH (_ IN CASE WHEN row.embedding IS NULL THEN [] ELSE [1] END | SET n.name_embedding = {vector})"
        sections.append(f"UNWIND ${_param(label)} AS row {body}")
    return sections


_REMOVE_STALE = [
    # Replaced sessions lose their own records that the new summary no longer has.
    "UNWIND $replaced AS rep OPTIONAL MATCH (:Episodic {uuid: rep.episode_uuid})-[:MENTIONS]->(old:Entity) "
    "WHERE NOT old.uuid IN rep.entity_uuids AND NOT old:File AND NOT old:Tool DETACH DELETE old",
    "UNWIND $replaced AS rep OPTIONAL MATCH (:Episodic {uuid: rep.episode_uuid})-[m:MENTIONS]->(old:Entity) "
    "WHERE NOT old.uuid IN rep.entity_uuids DELETE m",
    "UNWIND $replaced AS rep OPTIONAL MATCH (ep:Episodic {uuid: rep.episode_uuid}) "
    "UNWIND coalesce(ep.entity_edges, []) AS eid "
    "OPTIONAL MATCH ()-[r:RELATES_TO {uuid: eid}]->() WHERE NOT eid IN rep.edge_uuids DELETE r",
]


def _write_sections(dialect: Dialect) -> list[str]:
    vector = dialect.vector("row.embedding")
    return [
        "UNWIND $episodes AS row MERGE (ep:Episodic {uuid: row.uuid}) SET ep = row",
        *_entity_sections(dialect),
        "UNWIND $edges AS row MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target}) "
        "MERGE (a)-[r:RELATES_TO {uuid: row.uuid}]->(b) SET r = row.props "
        f"FOREACH (_ IN CASE WHEN row.embedding IS NULL THEN [] ELSE [1] END | SET r.fact_embedding = {vector})",
        "UNWIND $mentions AS row MATCH (ep:Episodic {uuid: row.source}) MATCH (n:Entity {uuid: row.target}) "
        "MERGE (ep)-[r:MENTIONS {uuid: row.uuid}]->(n) SET r = row.props",
    ]


def _chain(sections: list[str]) -> str:
    """Join sections into one statement; `WITH count(*)` keeps one row flowing past empty lists."""
    parts = [f"{section} WITH count(*) AS _{i}" for i, section in enumerate(sections)]
    return " ".join(parts) + " RETURN 1 AS done"


# Neo4j runs statements concurrently and MERGE alone does not stop two writers from creating the
# same node: each batch first takes the write lock of its group's lock node (unique by a
# constraint made when the backend opens), so writers of one group go one at a time. FalkorDB runs
# a graph's writes one at a time already.
_LOCK_GROUP = (
    "MERGE (lock:GraphitiSessionsLock {group: $group_id}) SET lock.writes = coalesce(lock.writes, 0) + 1"
)


@lru_cache(maxsize=32)
def write_query(
    dialect: Dialect, history: tuple[str, ...] = tuple(HISTORY_SECTIONS), with_vectors: bool = False
) -> str:
    """The batch write statement in a database's dialect, with the history sections it needs
    (and, with the local embedder, the sections that write and prune our vectors)."""
    lock = [_LOCK_GROUP] if dialect.group_lock else []
    recompute = [section for name in history for section in HISTORY_SECTIONS[name]]
    stale = [vectors.REMOVE_STALE, *_REMOVE_STALE] if with_vectors else _REMOVE_STALE
    own = [vectors.write_section(dialect)] if with_vectors else []
    return _chain([*lock, *stale, *_RELINK, *_write_sections(dialect), *own, *recompute])


EXISTING_QUERY = (
    "UNWIND $uuids AS u MATCH (s:Entity {uuid: u}) "
    "RETURN s.uuid AS uuid, s.content_hash AS content_hash, s.summary_version AS version, "
    "s.redaction AS redaction"
)
# An unchanged session whose stored text today's rules redact the same way: the stamp says so.
RESTAMP_QUERY = "UNWIND $uuids AS u MATCH (s:Entity:Session {uuid: u}) SET s.redaction = $redaction"
SESSION_TIMES_QUERY = (
    "MATCH (s:Entity:Session) WHERE s.group_id = $group_id AND s.started_at IS NOT NULL "
    "OPTIONAL MATCH (s)-[c:RELATES_TO {name: $continues}]->(p:Entity) "
    "RETURN s.uuid AS uuid, s.session_id AS session_id, s.started_at AS started_at, "
    "s.ended_at AS ended_at, c.uuid AS continues_uuid, p.uuid AS continues_to"
)
# Where else a session is: one session lives in one group, so writing it elsewhere moves it.
ELSEWHERE_QUERY = (
    "MATCH (s:Entity:Session) WHERE s.session_id IN $session_ids AND s.group_id <> $group_id "
    "RETURN DISTINCT s.session_id AS session_id, s.group_id AS group_id"
)
# A moved session's own records leave its old group, as a replace removes them: its entities and
# relations, its episode, the CONTINUES edge of the session after it (re-pointed by a relink
# pass), and the File and Tool nodes that no other session of the group mentions any more.
_REMOVE_SESSIONS = [
    vectors.REMOVE_SESSIONS,
    "UNWIND $sessions AS row MATCH (:Entity)-[c:RELATES_TO {name: $continues}]->(:Entity {uuid: row.session}) "
    "WITH c, c.uuid AS cid, c.episodes AS eps DELETE c WITH cid, eps UNWIND eps AS e "
    "MATCH (ep:Episodic {uuid: e}) SET ep.entity_edges = [x IN coalesce(ep.entity_edges, []) WHERE x <> cid]",
    "UNWIND $sessions AS row MATCH (ep:Episodic {uuid: row.episode}) "
    "UNWIND coalesce(ep.entity_edges, []) AS eid MATCH ()-[r:RELATES_TO {uuid: eid}]->() DELETE r",
    "UNWIND $sessions AS row MATCH (:Episodic {uuid: row.episode})-[:MENTIONS]->(n:Entity) "
    "WHERE NOT n:File AND NOT n:Tool DETACH DELETE n",
    "UNWIND $sessions AS row MATCH (ep:Episodic {uuid: row.episode}) DETACH DELETE ep",
    "UNWIND $sessions AS row MATCH (s:Entity {uuid: row.session}) DETACH DELETE s",
    "UNWIND $shared AS u MATCH (n:Entity {uuid: u}) OPTIONAL MATCH (n)<-[m:MENTIONS]-() "
    "WITH n, count(m) AS mentions WHERE mentions = 0 DETACH DELETE n",
]
SHARED_OF_QUERY = (
    "UNWIND $episodes AS e MATCH (:Episodic {uuid: e})-[:MENTIONS]->(n:Entity) "
    "WHERE n:File OR n:Tool RETURN DISTINCT n.uuid AS uuid"
)
REMOVE_SESSIONS_QUERY = _chain(_REMOVE_SESSIONS)

# A session that arrives after its successor slots into the chain: the successor's CONTINUES edge
# is re-pointed (old edge out, new one in with the edges below, its episode's edge list updated).
_RELINK = [
    "UNWIND $relink AS row OPTIONAL MATCH (:Entity {uuid: row.source})-[old:RELATES_TO {uuid: row.old}]->() "
    "DELETE old",
    "UNWIND $relink AS row MATCH (ep:Episodic {uuid: row.episode}) "
    "SET ep.entity_edges = [e IN coalesce(ep.entity_edges, []) WHERE e <> coalesce(row.old, '')] + [row.new]",
]


@dataclass
class _Batch:
    graphs: list[SessionGraph] = field(default_factory=list)
    replaced: list[dict[str, Any]] = field(default_factory=list)
    relinked: list[tuple[EntityEdge, str | None]] = field(default_factory=list)  # (new edge, old uuid)
    replaced_ids: list[str] = field(default_factory=list)
    history: History = field(default_factory=History)  # what the batch re-dates and relinks
    linked: list[EntityEdge] = field(default_factory=list)  # SEEN_BEFORE, SUPERSEDES edges to write
    holding: list[str] = field(default_factory=list)  # uuids of all that hold, written or not
    superseded: list[dict[str, Any]] = field(default_factory=list)  # decisions that no longer hold


@dataclass
class _Timeline:
    """The group's sessions by start time, with the batch's among them."""

    previous: dict[str, str]  # session id -> uuid of the session started last before it
    stored: dict[str, tuple[str | None, str | None]]  # stored session id -> (CONTINUES uuid, target)
    times: dict[str, datetime]  # stored session id -> its time (end, else start)


class SessionGraphWriter:
    """Ingest summaries into an open backend; idempotent, and atomic per batch of sessions."""

    def __init__(
        self,
        backend: Backend,
        embedder: EmbedderClient | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        redactor: Redactor | None = None,
        local: LocalEmbedder | None = None,
    ) -> None:
        self.backend = backend
        self.embedder = embedder
        self.local = local  # our own vectors (gs_embedding), whatever `embedder` is
        self._indexed: set[str] = set()  # groups whose vector index this writer has made sure of
        self.batch_size = batch_size
        self.redactor = redactor or Redactor()

    async def ingest(self, summary: EnhancedSessionSummary, group_id: str | None = None) -> WriteResult:
        return (await self.ingest_many([summary], group_id=group_id))[0]

    async def ingest_many(
        self,
        summaries: Sequence[EnhancedSessionSummary],
        group_id: str | None = None,
        *,
        on_batch: Callable[[list[tuple[int, WriteResult]]], None] | None = None,
    ) -> list[WriteResult]:
        """Write many sessions, grouped by project and batched; results in the given order.

        `on_batch` hears of each batch as soon as it is committed (index into `summaries`, result),
        so a caller can record progress that survives a later failure. A lost connection raises
        `BackendLost` saying how far the run got."""
        # The one way into the graph, so no secret gets in whoever the caller is (idempotent).
        summaries = [redact_summary(summary, self.redactor) for summary in summaries]
        results: dict[int, WriteResult] = {}
        by_group: dict[str, list[int]] = {}
        for index, summary in enumerate(summaries):
            by_group.setdefault(resolve_group_id(summary, group_id), []).append(index)
        for group, indices in by_group.items():
            for chunk in self._chunks(indices, summaries):
                try:
                    driver = await self.backend.driver_for(group)
                    written = await self._write_batch(driver, group, [summaries[i] for i in chunk])
                except Exception as exc:
                    if not is_connection_loss(exc):
                        raise
                    raise self._lost(exc, len(results), len(summaries)) from exc
                results.update(zip(chunk, written, strict=True))
                if on_batch is not None:
                    on_batch(list(zip(chunk, written, strict=True)))
        return [results[i] for i in range(len(summaries))]

    def _chunks(self, indices: list[int], summaries: Sequence[EnhancedSessionSummary]) -> list[list[int]]:
        """The group's sessions in batches of at most `batch_size` sessions and BATCH_RECORDS
        records (a session with more is a batch of its own)."""
        chunks: list[list[int]] = [[]]
        weight = 0
        for index in indices:
            records = _records(summaries[index])
            if chunks[-1] and (len(chunks[-1]) >= self.batch_size or weight + records > BATCH_RECORDS):
                chunks.append([])
                weight = 0
            chunks[-1].append(index)
            weight += records
        return [c for c in chunks if c]

    async def _write_batch(
        self,
        driver: GraphDriver,
        group: str,
        summaries: list[EnhancedSessionSummary],
        removed: History | None = None,
    ) -> list[WriteResult]:
        """Write one batch of a group's sessions (`removed`: the settings and error signatures of
        sessions just taken out of the group, whose history is recomputed without them)."""
        uuids = [session_uuid(s, group) for s in summaries]
        records, _, _ = await driver.execute_query(EXISTING_QUERY, uuids=uuids)
        existing = {r["uuid"]: r for r in records}
        timeline = await self._timeline(driver, group, summaries)
        previous = timeline.previous
        elsewhere = await self._elsewhere(group, [s.session_id for s in summaries]) if summaries else {}

        batch = _Batch()
        results: list[WriteResult] = []
        seen: set[str] = set()
        stamp = self.redactor.signature
        restamp: list[str] = []
        for summary, uuid in zip(summaries, uuids, strict=True):
            old = existing.get(uuid)
            if (old is not None and old["content_hash"] == content_hash(summary)) or uuid in seen:
                version = int(old["version"] or 1) if old is not None else 1
                if old is not None and old["redaction"] != stamp and uuid not in seen:
                    restamp.append(uuid)
                results.append(
                    WriteResult(
                        summary.session_id,
                        group,
                        "moved" if summary.session_id in elsewhere else "unchanged",
                        version,
                        0,
                        0,
                        elsewhere.get(summary.session_id, []),
                    )
                )
                continue
            seen.add(uuid)
            version = int(old["version"] or 0) + 1 if old is not None else 1
            graph = map_summary(summary, group, version, previous.get(summary.session_id))
            # Which rules redacted what this session wrote: the output gate need not redact it again.
            graph.session_node.attributes["redaction"] = stamp
            batch.graphs.append(graph)
            if old is not None:
                batch.replaced_ids.append(summary.session_id)
                batch.replaced.append(
                    {
                        "episode_uuid": graph.episode.uuid,
                        "entity_uuids": [n.uuid for n in [graph.session_node, *graph.entities]],
                        "edge_uuids": [e.uuid for e in graph.edges],
                    }
                )
            status = "replaced" if old is not None else "created"
            if summary.session_id in elsewhere:
                status = "moved"
            results.append(
                WriteResult(
                    summary.session_id,
                    group,
                    status,
                    version,
                    graph.node_count + 1,
                    graph.edge_count,
                    elsewhere.get(summary.session_id, []),
                )
            )
        await self._history(driver, group, batch, removed)
        if batch.graphs or batch.relinked or batch.history:
            written = {g.session_node.attributes["session_id"] for g in batch.graphs}
            for session_id, (old_uuid, old_target) in timeline.stored.items():
                target = previous.get(session_id)
                if session_id in written or target is None or target == old_target:
                    continue
                edge = continues_edge(group, session_id, timeline.times[session_id], target)
                batch.relinked.append((edge, old_uuid))
            params = await self._params(batch)
            with_vectors = self.local is not None
            if with_vectors:
                await self._ensure_index(driver, group)
                params["vectors"] = self._vectors(batch.graphs)
            await driver.execute_query(
                write_query(self.backend.dialect, batch.history.sections, with_vectors),
                group_id=group,
                **params,
            )
        if restamp:
            await driver.execute_query(RESTAMP_QUERY, uuids=restamp, redaction=stamp)
        await self._remove_moved(elsewhere)
        return results

    async def _elsewhere(self, group: str, session_ids: list[str]) -> dict[str, list[str]]:
        """The other groups that hold each of these sessions (a session written to `group` leaves them)."""
        if self.backend.graph_per_group:
            drivers = [d for name, d in await self.backend.every_graph() if name != group]
        else:
            drivers = [await self.backend.driver_for(group)]
        found: dict[str, list[str]] = {}
        for driver in drivers:
            records, _, _ = await driver.execute_query(
                ELSEWHERE_QUERY, session_ids=session_ids, group_id=group
            )
            for r in records:
                if r["group_id"] and r["group_id"] not in found.setdefault(r["session_id"], []):
                    found[r["session_id"]].append(r["group_id"])
        return found

    async def _remove_moved(self, elsewhere: dict[str, list[str]]) -> None:
        """Take moved sessions out of their old groups (after the new group holds them, so a stop in
        between leaves a copy too many, never none; the next run finds and removes it), then
        re-point the CONTINUES chain of each old group."""
        by_group: dict[str, list[str]] = {}
        for session_id, groups in elsewhere.items():
            for old_group in groups:
                by_group.setdefault(old_group, []).append(session_id)
        for old_group, session_ids in sorted(by_group.items()):
            driver = await self.backend.driver_for(old_group)
            sessions = [
                {
                    "session": entity_uuid(old_group, Label.SESSION, sid),
                    "episode": episode_uuid(old_group, sid),
                }
                for sid in session_ids
            ]
            records, _, _ = await driver.execute_query(
                SHARED_OF_QUERY, episodes=[row["episode"] for row in sessions]
            )
            leaving = History()
            history, _, _ = await driver.execute_query(
                OLD_HISTORY_QUERY, session_ids=session_ids, group_id=old_group
            )
            leaving.add(history)
            await driver.execute_query(
                REMOVE_SESSIONS_QUERY,
                sessions=sessions,
                shared=[r["uuid"] for r in records],
                continues=Relation.CONTINUES.value,
            )
            # Relink only: the CONTINUES chain, and the history of the settings and errors that left.
            await self._write_batch(driver, old_group, [], removed=leaving)

    async def _timeline(
        self, driver: GraphDriver, group: str, summaries: list[EnhancedSessionSummary]
    ) -> _Timeline:
        """For each session of the group and the batch, the one that started last before it
        (ties broken by session id, so that any order of ingest builds the same chain)."""
        records, _, _ = await driver.execute_query(
            SESSION_TIMES_QUERY, group_id=group, continues=Relation.CONTINUES.value
        )
        known: dict[str, tuple[str, str]] = {}
        stored: dict[str, tuple[str | None, str | None]] = {}
        times: dict[str, datetime] = {}
        for r in records:
            known[r["session_id"]] = (str(r["started_at"]), str(r["uuid"]))
            stored[r["session_id"]] = (r["continues_uuid"], r["continues_to"])
            times[r["session_id"]] = datetime.fromisoformat(str(r["ended_at"] or r["started_at"])).astimezone(
                UTC
            )
        for summary in summaries:
            started = iso_time(summary.started_at)
            if started is not None:
                known[summary.session_id] = (started, session_uuid(summary, group))
        timeline = sorted(known.items(), key=lambda item: (item[1][0], item[0]))
        previous: dict[str, str] = {}
        for (_, (_, before_uuid)), (session_id, _) in pairwise(timeline):
            previous[session_id] = before_uuid
        return _Timeline(previous, stored, times)

    async def _params(self, batch: _Batch) -> dict[str, Any]:
        dialect = self.backend.dialect
        node_rows: dict[str, dict[str, Any]] = {}
        node_labels: dict[str, Label] = {}
        edges: list[dict[str, Any]] = []
        mentions: list[dict[str, Any]] = []
        for graph in batch.graphs:
            for node in [graph.session_node, *graph.entities]:
                # A File or Tool shared by two sessions of the batch is written once.
                node_rows.setdefault(
                    node.uuid,
                    {
                        "uuid": node.uuid,
                        "created_at": _time(node.created_at, dialect),
                        "props": _node_props(node, dialect),
                    },
                )
                node_labels[node.uuid] = Label(node.labels[0])
            edges += [_edge_row(e, dialect) for e in graph.edges]
            mentions += [
                {
                    "uuid": m.uuid,
                    "source": m.source_node_uuid,
                    "target": m.target_node_uuid,
                    "props": _mention_props(m, dialect),
                }
                for m in graph.mentions
            ]
        edges += [_edge_row(edge, dialect) for edge, _ in batch.relinked]
        edges += [_edge_row(edge, dialect) for edge in batch.linked]
        await self._embed(list(node_rows.values()), edges)
        params: dict[str, Any] = {
            "replaced": batch.replaced,
            "relink": [
                {"source": edge.source_node_uuid, "old": old, "episode": edge.episodes[0], "new": edge.uuid}
                for edge, old in batch.relinked
            ],
            "episodes": [_episode_props(g, dialect) for g in batch.graphs],
            "edges": edges,
            "mentions": mentions,
            **batch.history.params(batch.holding, batch.superseded),
        }
        for label in Label:
            params[_param(label)] = [row for uuid, row in node_rows.items() if node_labels[uuid] is label]
        return params

    async def _history(self, driver: GraphDriver, group: str, batch: _Batch, removed: History | None) -> None:
        """What the batch changes in the group's history: the settings to re-date, and every
        SEEN_BEFORE and SUPERSEDES link of the errors and decisions it touches."""
        touched = History.of(batch.graphs)
        if batch.replaced_ids:
            records, _, _ = await driver.execute_query(
                OLD_HISTORY_QUERY,
                session_ids=batch.replaced_ids,
                group_id=group,
            )
            touched.add(records)
        if removed is not None:
            touched.merge(removed)
        batch.history = touched
        rewritten = {g.session_node.attributes["session_id"] for g in batch.graphs}
        own = {n.uuid for g in batch.graphs for n in g.entities}
        if touched.signatures:
            records, _, _ = await driver.execute_query(
                ERRORS_OF_QUERY, signatures=sorted(touched.signatures), group_id=group
            )
            edges = seen_before_edges(group, records, batch.graphs, rewritten)
            batch.holding += [e.uuid for e in edges]
            batch.linked += unwritten(edges, records, rewritten, own)
        if touched.decisions:
            records, _, _ = await driver.execute_query(DECISIONS_OF_QUERY, group_id=group)
            edges, batch.superseded = supersedes_edges(group, records, batch.graphs, rewritten)
            batch.holding += [e.uuid for e in edges]
            batch.linked += unwritten(edges, records, rewritten, own)
            if not edges and not any(r["links"] for r in records) and not (removed and removed.decisions):
                touched.decisions = False  # no reversal now or before: nothing to write or undo
            for row in batch.superseded:
                row["at"] = _time(row["at"], self.backend.dialect)

    async def _ensure_index(self, driver: GraphDriver, group: str) -> None:
        """The vector index, made once per group's graph (once per database on Neo4j)."""
        key = group if self.backend.graph_per_group else ""
        if key not in self._indexed:
            await vectors.ensure_index(driver, self.backend.dialect)
            self._indexed.add(key)

    def _lost(self, exc: Exception, written: int, total: int) -> BackendLost:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "connection lost"
        return BackendLost(
            f"{self.backend.kind} backend at {self.backend.location}",
            self.backend.why_lost() or f"{type(exc).__name__}: {reason}",
            written,
            total,
        )

    async def backfill_vectors(self, batch_size: int = 200) -> int:
        """Vectors for the sessions the graph holds without them (written before the local
        embedder was on, or with it turned off): their summaries are read back from their episodes
        and embedded as a write would. A run's ledger skips unchanged sessions, so without this
        they would stay invisible to search by meaning. Returns how many sessions got vectors."""
        if self.local is None:
            return 0
        try:
            return await self._backfill(batch_size)
        except Exception as exc:
            if not is_connection_loss(exc):
                raise
            raise self._lost(exc, 0, 0) from exc

    async def _backfill(self, batch_size: int) -> int:
        assert self.local is not None
        done = 0
        for group in await self.backend.list_groups():
            driver = await self.backend.driver_for(group)
            await self._ensure_index(driver, group)
            skip: set[str] = set()  # sessions whose episode is missing or not a summary we read
            while True:
                records, _, _ = await driver.execute_query(
                    vectors.MISSING_QUERY, group_id=group, skip=sorted(skip), limit=batch_size
                )
                if not records:
                    break
                wanted = {episode_uuid(group, r["session_id"]): r for r in records}
                stored, _, _ = await driver.execute_query(EPISODE_CONTENT_QUERY, uuids=list(wanted))
                contents = {row["uuid"]: row["content"] for row in stored}
                graphs = []
                for uuid, record in wanted.items():
                    try:
                        summary = EnhancedSessionSummary.model_validate_json(contents.get(uuid) or "")
                    except ValueError:
                        skip.add(record["session_id"])
                        continue
                    graphs.append(map_summary(summary, group, int(record["version"] or 1)))
                if graphs:
                    await driver.execute_query(
                        vectors.write_section(self.backend.dialect), vectors=self._vectors(graphs)
                    )
                    done += len(graphs)
        return done

    def _vectors(self, graphs: list[SessionGraph]) -> list[dict[str, Any]]:
        """One row per embedded record of the batch, all embedded in one call."""
        assert self.local is not None
        rows: dict[str, dict[str, Any]] = {}
        for graph in graphs:
            kinds = {n.uuid: n.labels[0] for n in [graph.session_node, *graph.entities]}
            for uuid, text in graph.vector_texts.items():
                rows[uuid] = {
                    "uuid": uuid,
                    "vector_uuid": vectors.vector_uuid(uuid),
                    "group_id": graph.group_id,
                    "kind": kinds[uuid],
                    "text": text,
                }
        embedded = self.local.unit_vectors([row.pop("text") for row in rows.values()])
        kept = [(row, v) for row, v in zip(rows.values(), embedded, strict=True) if v is not None]
        packed = self.backend.dialect.pack_vectors([v for _, v in kept])
        return [{**row, "vector": vector} for (row, _), vector in zip(kept, packed, strict=True)]

    async def _embed(self, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> None:
        """Embed every name and fact of the batch in one request; without an embedder, none."""
        texts = [row["props"]["name"] for row in nodes] + [row["props"]["fact"] for row in edges]
        vectors: list[list[float] | None] = [None] * len(texts)
        if self.embedder is not None and texts:
            vectors = list(await self.embedder.create_batch([t.replace("\n", " ") for t in texts]))
        for row, vector in zip([*nodes, *edges], vectors, strict=True):
            row["embedding"] = vector


def _records(summary: EnhancedSessionSummary) -> int:
    """How many records a session writes, about: its own node and one per listed item."""
    lists = (
        summary.key_decisions,
        summary.errors_resolved,
        summary.config_changes,
        summary.files_modified,
        summary.documentation_referenced,
        summary.commits,
        summary.tools_used,
        summary.discoveries,
    )
    commit_files = sum(len(commit.files or ()) for commit in summary.commits or ())
    return 1 + sum(len(items or ()) for items in lists) + commit_files


def session_uuid(summary: EnhancedSessionSummary, group: str) -> str:
    return entity_uuid(group, Label.SESSION, summary.session_id)


def _time(value: datetime | None, dialect: Dialect) -> Any:
    return dialect.time(value)


def _node_props(node: EntityNode, dialect: Dialect) -> dict[str, Any]:
    props: dict[str, Any] = {
        "uuid": node.uuid,
        "name": node.name,
        "group_id": node.group_id,
        "summary": node.summary,
        "created_at": _time(node.created_at, dialect),
    }
    for key, value in node.attributes.items():
        props.setdefault(key, value)
    return props


def _edge_row(edge: EntityEdge, dialect: Dialect) -> dict[str, Any]:
    return {
        "uuid": edge.uuid,
        "source": edge.source_node_uuid,
        "target": edge.target_node_uuid,
        "props": _edge_props(edge, dialect),
    }


def _edge_props(edge: EntityEdge, dialect: Dialect) -> dict[str, Any]:
    return {
        "uuid": edge.uuid,
        "name": edge.name,
        "fact": edge.fact,
        "group_id": edge.group_id,
        "episodes": edge.episodes,
        "created_at": _time(edge.created_at, dialect),
        "valid_at": _time(edge.valid_at, dialect),
    }


def _mention_props(edge: EpisodicEdge, dialect: Dialect) -> dict[str, Any]:
    return {"uuid": edge.uuid, "group_id": edge.group_id, "created_at": _time(edge.created_at, dialect)}


def _episode_props(graph: SessionGraph, dialect: Dialect) -> dict[str, Any]:
    episode = graph.episode
    return {
        "uuid": episode.uuid,
        "name": episode.name,
        "group_id": episode.group_id,
        "source": episode.source.value,
        "source_description": episode.source_description,
        "content": episode.content,
        "entity_edges": episode.entity_edges,
        "created_at": _time(episode.created_at, dialect),
        "valid_at": _time(episode.valid_at, dialect),
    }
