"""Map an EnhancedSessionSummary to Graphiti's own node and edge models (no LLM, no I/O).

Every uuid is a uuid5 of a stable key, and every timestamp comes from the session itself, so the
same summary always maps to exactly the same nodes, edges and property values.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from graphiti_session_tracking.summary import EnhancedSessionSummary
from graphiti_session_tracking.summary.errors import error_signature

from .schema import (
    EMBEDDED_LABELS,
    EPISODE_SOURCE_DESCRIPTION,
    SHARED_LABELS,
    Label,
    Relation,
    _aware,
    edge_uuid,
    entity_uuid,
    episode_uuid,
    iso_time,
    mentions_uuid,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAME_LIMIT = 120


@dataclass
class SessionGraph:
    """Everything one session writes: its episode, entities, relations and MENTIONS edges."""

    group_id: str
    episode: EpisodicNode
    session_node: EntityNode
    started: datetime  # the session's start: when a shared File or Tool was first seen
    entities: list[EntityNode] = field(default_factory=list)
    edges: list[EntityEdge] = field(default_factory=list)
    mentions: list[EpisodicEdge] = field(default_factory=list)
    # What the local embedder embeds, by entity uuid: the session's summary, each decision,
    # error and setting (the records a question is about; files and tools are found by name).
    vector_texts: dict[str, str] = field(default_factory=dict)

    @property
    def node_count(self) -> int:
        return 1 + len(self.entities)

    @property
    def edge_count(self) -> int:
        return len(self.edges) + len(self.mentions)


_COST = {"llm_calls", "llm_input_tokens", "llm_output_tokens"}


def content_hash(summary: EnhancedSessionSummary) -> str:
    """Hash of the summary's content: equal hashes mean nothing to write. What the LLM cost is
    not content (the same summary costs no classification call when another process had just
    cached the tool's class), so it neither bumps a version nor rewrites a session."""
    text = summary.model_dump_json(exclude_none=True, exclude=_COST)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def short_id(session_id: str) -> str:
    return session_id[:8]


def cut(text: str, limit: int = _NAME_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def map_summary(
    summary: EnhancedSessionSummary,
    group_id: str,
    summary_version: int = 1,
    previous_session_uuid: str | None = None,
) -> SessionGraph:
    """The session's graph records, ready for the writer.

    `previous_session_uuid` is the Session node this one CONTINUES (the project's session that
    started last before it); the writer looks it up.
    """
    # In UTC, so that times stored as text (FalkorDB) compare correctly.
    when = (_aware(summary.ended_at or summary.started_at) or _EPOCH).astimezone(UTC)
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
        "started_at": iso_time(summary.started_at),
        "ended_at": iso_time(summary.ended_at),
        "git_branch": summary.git_branch,
        "agent": summary.agent,
        "agent_version": summary.agent_version,
        "project_path": summary.project_path,
        "source_file": summary.session_file,
        "summary_version": summary_version,
        "content_hash": content_hash(summary),
        # What the LLM cost for this session (absent when it made no call): calls and tokens.
        "llm_calls": summary.llm_calls or None,
        "llm_input_tokens": summary.llm_input_tokens or None,
        "llm_output_tokens": summary.llm_output_tokens or None,
        "legacy_extra": _legacy_extra(summary),
    }
    session_node = EntityNode(
        uuid=entity_uuid(group_id, Label.SESSION, summary.session_id),
        name=cut(summary.objective) or f"Session {sid}",  # no request found: the id, not a guess
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
            name=f"Session {sid}: {cut(summary.objective, 80)}".rstrip(": "),
            group_id=group_id,
            source=EpisodeType.json,
            source_description=EPISODE_SOURCE_DESCRIPTION,
            content=summary.model_dump_json(exclude_none=True),
            valid_at=when,
            created_at=when,
        ),
        session_node=session_node,
        started=(_aware(summary.started_at) or when).astimezone(UTC),
    )

    _map_records(graph, summary, sid, previous_session_uuid)

    graph.episode.entity_edges = [edge.uuid for edge in graph.edges]
    graph.vector_texts = vector_texts(graph, summary)
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


def _map_records(
    graph: SessionGraph, summary: EnhancedSessionSummary, sid: str, previous_session_uuid: str | None
) -> None:
    """Every record of the summary as an entity linked to the session (and to the files it names),
    one kind after another (the order makes the same graph every time)."""
    records = _Records(graph, summary, sid)
    records.modified_files_and_tools()
    records.config_changes()
    records.decisions()
    records.errors()
    records.tests()
    records.tasks()
    records.discoveries_and_documents()
    records.commits()
    session = graph.session_node
    if previous_session_uuid is not None and previous_session_uuid != session.uuid:
        graph.edges.append(
            continues_edge(graph.group_id, summary.session_id, graph.episode.valid_at, previous_session_uuid)
        )


class _Records:
    """The mapping of one summary's records, one method per kind; File nodes are shared by all."""

    def __init__(self, graph: SessionGraph, summary: EnhancedSessionSummary, sid: str) -> None:
        self.graph, self.summary, self.sid = graph, summary, sid
        self.session = graph.session_node
        self.owned = summary.session_id  # records keyed by the session belong to it alone
        self.files: dict[str, EntityNode] = {}

    def file_node(self, path: str) -> EntityNode:
        if path not in self.files:
            self.files[path] = _entity(
                self.graph, Label.FILE, path, name=path, summary=f"File {path}", attributes={"path": path}
            )
        return self.files[path]

    def affects(self, node: EntityNode, text: str, known_files: list[str], what: str) -> None:
        """AFFECTS_FILE from a record to each known file its text names."""
        for path in _named_files(text, known_files):
            _relate(self.graph, node, Relation.AFFECTS_FILE, self.files[path], f"{what} affects {path}")

    def modified_files_and_tools(self) -> None:
        """Files the session wrote, and the tools it used."""
        graph, summary, session, sid, file_node = (
            self.graph,
            self.summary,
            self.session,
            self.sid,
            self.file_node,
        )
        for path in summary.files_modified or []:
            _relate(graph, session, Relation.MODIFIED_FILE, file_node(path), f"Session {sid} modified {path}")

        for tool in summary.tools_used or []:
            node = _entity(
                graph,
                Label.TOOL,
                tool.name,
                name=tool.name,
                summary=f"Tool {tool.name}: {tool.intent} in {tool.domain}",
                attributes={"tool_name": tool.name, "intent": tool.intent, "domain": tool.domain},
            )
            _relate(
                graph,
                session,
                Relation.USED_TOOL,
                node,
                f"Session {sid} used {tool.name} ({tool.calls} calls)",
            )

    def config_changes(self) -> None:
        """Each setting changed, linked to its file."""
        graph, summary, session, owned, sid, file_node = (
            self.graph,
            self.summary,
            self.session,
            self.owned,
            self.sid,
            self.file_node,
        )
        for change in summary.config_changes or []:
            old = change.old_value if change.old_value is not None else "(unset)"
            node = _entity(
                graph,
                Label.CONFIG_CHANGE,
                _key(owned, change.file, change.setting),
                name=f"{change.file}: {change.setting}",
                summary=f"{change.setting} in {change.file}: {old} → {change.new_value}. {change.reason}".strip(),
                attributes=_present(
                    file=change.file,
                    setting=change.setting,
                    old_value=change.old_value,
                    new_value=change.new_value,
                    reason=change.reason,
                    session_id=summary.session_id,
                ),
            )
            reason = f" because {change.reason}" if change.reason else ""
            _relate(
                graph,
                session,
                Relation.CHANGED_CONFIG,
                node,
                f"Session {sid} changed {change.setting} in {change.file} from {old} to {change.new_value}{reason}",
            )
            _relate(
                graph,
                node,
                Relation.CONFIG_IN_FILE,
                file_node(change.file),
                f"{change.setting} is set in {change.file}",
            )

    def decisions(self) -> None:
        """Each decision, linked to the files its text names."""
        graph, summary, session, owned, sid, files = (
            self.graph,
            self.summary,
            self.session,
            self.owned,
            self.sid,
            self.files,
        )
        known_files = list(files)
        for decision in summary.key_decisions or []:
            because = f" because {decision.rationale}" if decision.rationale else ""
            node = _entity(
                graph,
                Label.DECISION,
                _key(owned, decision.decision),
                name=decision.decision,
                summary=f"{decision.decision}.{' Why: ' + decision.rationale if decision.rationale else ''}",
                attributes=_present(
                    decision=decision.decision,
                    rationale=decision.rationale,
                    alternatives=decision.alternatives or [],
                    confidence=decision.confidence,
                    by=decision.by,
                    session_id=summary.session_id,
                ),
            )
            _relate(
                graph,
                session,
                Relation.MADE_DECISION,
                node,
                f"Session {sid} decided: {decision.decision}{because}",
            )
            text = " ".join([decision.decision, decision.rationale, *(decision.alternatives or [])])
            self.affects(node, text, known_files, f"Decision '{cut(decision.decision, 80)}'")

    def errors(self) -> None:
        """Each error resolved, linked to the files its text names."""
        graph, summary, session, owned, sid, files = (
            self.graph,
            self.summary,
            self.session,
            self.owned,
            self.sid,
            self.files,
        )
        known_files = list(files)
        for error in summary.errors_resolved or []:
            node = _entity(
                graph,
                Label.ERROR_RESOLUTION,
                _key(owned, error.error),
                name=error.error,
                summary=" ".join(
                    part
                    for part in (
                        error.error + ".",
                        f"Root cause: {error.root_cause}." if error.root_cause else "",
                        f"Fix: {error.fix}." if error.fix else "",
                    )
                    if part
                ),
                attributes=_present(
                    error=error.error,
                    root_cause=error.root_cause,
                    fix=error.fix,
                    verification=error.verification,
                    signature=error_signature(error.error),
                    session_id=summary.session_id,
                ),
            )
            cause = f"; root cause: {error.root_cause}" if error.root_cause else ""
            fix = f"; fixed by {error.fix}" if error.fix else ""
            _relate(
                graph,
                session,
                Relation.RESOLVED_ERROR,
                node,
                f"Session {sid} resolved '{cut(error.error, 120)}'{cause}{fix}",
            )
            text = " ".join([error.error, error.root_cause, error.fix])
            self.affects(node, text, known_files, f"Error '{cut(error.error, 80)}'")

    def tests(self) -> None:
        """The test run."""
        graph, summary, session, owned, sid = self.graph, self.summary, self.session, self.owned, self.sid
        if summary.test_results is not None:
            tr = summary.test_results
            label = f"{tr.framework}: {tr.passed}/{tr.total} passed"
            node = _entity(
                graph,
                Label.TEST_RUN,
                _key(owned, tr.framework),
                name=label,
                summary=label + (f", failed: {', '.join(tr.failed_tests)}" if tr.failed_tests else ""),
                attributes=_present(
                    framework=tr.framework,
                    total=tr.total,
                    passed=tr.passed,
                    failed=tr.failed,
                    skipped=tr.skipped,
                    coverage_pct=tr.coverage_pct,
                    failed_tests=tr.failed_tests or [],
                    session_id=summary.session_id,
                ),
            )
            _relate(graph, session, Relation.RAN_TESTS, node, f"Session {sid} ran {label}")

    def tasks(self) -> None:
        """Tasks completed and next steps."""
        graph, summary, session, owned, sid = self.graph, self.summary, self.session, self.owned, self.sid
        for status, relation, tasks, verb in (
            ("completed", Relation.COMPLETED_TASK, summary.completed_tasks, "completed"),
            ("next", Relation.PLANNED_NEXT, summary.next_steps, "planned next"),
        ):
            for task in tasks or []:
                node = _entity(
                    graph,
                    Label.TASK,
                    _key(owned, status, task),
                    name=task,
                    summary=f"Task ({status}): {task}",
                    attributes={"status": status, "session_id": summary.session_id},
                )
                _relate(graph, session, relation, node, f"Session {sid} {verb}: {task}")

    def discoveries_and_documents(self) -> None:
        """Discoveries, and the documents consulted (Files too, shared with the group)."""
        graph, summary, session, owned, sid, file_node = (
            self.graph,
            self.summary,
            self.session,
            self.owned,
            self.sid,
            self.file_node,
        )
        for discovery in summary.discoveries or []:
            node = _entity(
                graph,
                Label.DISCOVERY,
                _key(owned, discovery),
                name=discovery,
                summary=discovery,
                attributes={"session_id": summary.session_id},
            )
            _relate(graph, session, Relation.DISCOVERED, node, f"Session {sid} discovered: {discovery}")

        # Documents consulted are Files too (shared with the group), linked apart from MODIFIED_FILE.
        for path in summary.documentation_referenced or []:
            _relate(
                graph, session, Relation.REFERENCED_DOC, file_node(path), f"Session {sid} referenced {path}"
            )

    def commits(self) -> None:
        """Each commit the session made, linked to the files it changed: a commit leads back to
        the session, and from there to its decisions and errors (the why)."""
        graph, summary, session, owned, sid, file_node = (
            self.graph,
            self.summary,
            self.session,
            self.owned,
            self.sid,
            self.file_node,
        )
        for commit in summary.commits or []:
            short = commit.sha[:8]
            pr = f" (pull request #{commit.pull_request})" if commit.pull_request else ""
            node = _entity(
                graph,
                Label.COMMIT,
                _key(owned, commit.sha),
                name=f"{short} {commit.message}".strip(),
                summary=f"Commit {short} on {commit.branch or 'a detached HEAD'}: {commit.message}{pr}",
                attributes=_present(
                    sha=commit.sha,
                    message=commit.message,
                    branch=commit.branch,
                    committed_at=iso_time(commit.committed_at),
                    files=commit.files or [],
                    pushed=commit.pushed,
                    pull_request=commit.pull_request,
                    session_id=summary.session_id,
                ),
            )
            _relate(
                graph,
                session,
                Relation.MADE_COMMIT,
                node,
                f"Session {sid} made commit {short}: {commit.message}{pr}",
            )
            for path in commit.files or []:
                _relate(
                    graph, node, Relation.COMMITTED_FILE, file_node(path), f"Commit {short} changed {path}"
                )


_SESSION_TEXT_LIMIT = 2_000


def session_text(summary: EnhancedSessionSummary) -> str:
    """The session in a paragraph, for its vector: what it set out to do, how it ended, and what it
    decided, fixed, changed, did and found (a question names any of these in its own words)."""
    parts = [summary.objective, f"Outcome: {summary.outcome}."]
    parts += [d.decision for d in summary.key_decisions or []]
    parts += [e.error.splitlines()[0] if e.error else "" for e in summary.errors_resolved or []]
    parts += [f"{c.setting} in {c.file}" for c in summary.config_changes or []]
    parts += [*(summary.completed_tasks or []), *(summary.discoveries or [])]
    parts += [c.message for c in summary.commits or []]
    return cut(" ".join(p for p in parts if p), _SESSION_TEXT_LIMIT)


def vector_texts(graph: SessionGraph, summary: EnhancedSessionSummary) -> dict[str, str]:
    """The text to embed of each embedded record, by its entity uuid (the node's own summary:
    a decision with its reason, an error with cause and fix, a setting with old and new value)."""
    texts = {graph.session_node.uuid: session_text(summary)}
    for node in graph.entities:
        if Label(node.labels[0]) in EMBEDDED_LABELS:
            texts[node.uuid] = node.summary
    return texts


def continues_edge(group_id: str, session_id: str, when: datetime, previous_session_uuid: str) -> EntityEdge:
    """The CONTINUES edge of a session to the project's session before it. The writer also builds
    it for a stored session when an older session arrives later and slots in before it."""
    session = entity_uuid(group_id, Label.SESSION, session_id)
    return EntityEdge(
        uuid=edge_uuid(group_id, Relation.CONTINUES, session, previous_session_uuid),
        group_id=group_id,
        source_node_uuid=session,
        target_node_uuid=previous_session_uuid,
        name=Relation.CONTINUES.value,
        fact=f"Session {short_id(session_id)} continues the project's previous session",
        episodes=[episode_uuid(group_id, session_id)],
        created_at=when,
        valid_at=when,
    )


# Where a migrated record came from is provenance; everything else of its metadata had no place
# in the new schema (unknown sections, front matter, fields): kept whole on the Session.
LEGACY_PROVENANCE = frozenset(
    {"legacy_source", "legacy_episode_uuid", "legacy_group_id", "legacy_session_number", "legacy_title"}
)


def _legacy_extra(summary: EnhancedSessionSummary) -> str | None:
    """A migrated session's fields with no place in the schema, as JSON text (graph properties
    hold no maps); None for a session read from a transcript."""
    metadata = summary.metadata or {}
    if "legacy_source" not in metadata:
        return None
    extra = {k: v for k, v in metadata.items() if k not in LEGACY_PROVENANCE}
    return json.dumps(extra, sort_keys=True, ensure_ascii=False) if extra else None


def _key(*parts: str) -> str:
    return "\x1f".join(parts)


def _present(**values: Any) -> dict[str, Any]:
    """Attributes without empty values (the graph stores no nulls)."""
    return {k: v for k, v in values.items() if v is not None and v != ""}


def _named_files(text: str, paths: list[str]) -> list[str]:
    """The known files a text names, by path or by file name as a whole word."""
    named = []
    for path in paths:
        base = PurePosixPath(path).name
        if path in text or (base and re.search(rf"(?<![\w./-]){re.escape(base)}(?![\w-])", text)):
            named.append(path)
    return named


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
        # A shared node keeps its earliest session's start (the writer keeps the minimum): the
        # same whatever order sessions arrive in, and stable while a transcript grows.
        created_at=graph.started if label in SHARED_LABELS else graph.episode.valid_at,
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
