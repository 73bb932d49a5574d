"""What is true now, and have we seen this before — kept by the writer, with no LLM, the same
whatever order sessions arrive in.

- A setting's value holds until the next change of the same setting in the same file (same
  project): the earlier CHANGED_CONFIG fact gets `invalid_at` and `expired_at` = the later
  session's time. A removal is a change too.
- An error whose signature (`summary.errors.error_signature`) was hit in an earlier session of
  the project links with SEEN_BEFORE to the latest earlier occurrence and to the first, whose facts
  carry the fix that worked then: two links at most, so an error hit a thousand times costs no
  more to write than one hit twice (each occurrence links to its predecessor: a chain).
- A decision that turns down what an earlier one chose, while the earlier one turned down what
  it chooses ("X instead of Y" after "Y instead of X"), about the same files when both name
  files, SUPERSEDES it; the earlier MADE_DECISION fact ends at the later session's time.

Every batch recomputes these for the settings, signatures and decisions it touches (its own,
those of the sessions it replaces, those of sessions moved away) over all of the group's records,
in the same statement as its write: an interrupted run leaves the old history, never half of one.
It writes only the links that are not already stored as computed (`unwritten`), so its statement
grows with the batch, not with how often an error recurs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphiti_core.edges import EntityEdge

from graphiti_session_tracking.summary._sentences import cut

from .mapping import SessionGraph
from .schema import Label, Relation, edge_uuid, episode_uuid

KEY_SEP = "\x1f"  # between a setting's file and name in $config_keys

# The settings and error signatures of sessions about to be replaced or removed, whose history is
# recomputed without them (and whether they made decisions).
OLD_HISTORY_QUERY = (
    "MATCH (n:Entity:ConfigChange) WHERE n.group_id = $group_id AND n.session_id IN $session_ids "
    "RETURN n.file AS file, n.setting AS setting, null AS signature, false AS decision "
    "UNION ALL MATCH (n:Entity:ErrorResolution) WHERE n.group_id = $group_id AND n.session_id IN $session_ids "
    "RETURN null AS file, null AS setting, n.signature AS signature, false AS decision "
    "UNION ALL MATCH (n:Entity:Decision) WHERE n.group_id = $group_id AND n.session_id IN $session_ids "
    "AND size(coalesce(n.alternatives, [])) > 0 "
    "RETURN null AS file, null AS setting, null AS signature, true AS decision"
)
ERRORS_OF_QUERY = (
    "MATCH (e:Entity:ErrorResolution) WHERE e.group_id = $group_id AND e.signature IN $signatures "
    "RETURN e.uuid AS uuid, e.signature AS signature, e.created_at AS at, "
    "e.session_id AS session_id, e.name AS text, coalesce(e.fix, '') AS detail, "
    f"[(e)-[r:RELATES_TO {{name: '{Relation.SEEN_BEFORE.value}'}}]->(:Entity) | r.uuid] AS links"
)
DECISIONS_OF_QUERY = (
    "MATCH (d:Entity:Decision) WHERE d.group_id = $group_id AND size(coalesce(d.alternatives, [])) > 0 "
    "OPTIONAL MATCH (d)-[:RELATES_TO {name: 'AFFECTS_FILE'}]->(f:Entity:File) "
    "WITH d, collect(f.path) AS files "
    "RETURN d.uuid AS uuid, d.session_id AS session_id, d.created_at AS at, d.decision AS text, "
    "d.alternatives AS alternatives, files, "
    f"[(d)-[s:RELATES_TO {{name: '{Relation.SUPERSEDES.value}'}}]->(:Entity) | s.uuid] AS links"
)

_CONFIG = Relation.CHANGED_CONFIG.value
_SEEN = Relation.SEEN_BEFORE.value
_SUPERSEDES = Relation.SUPERSEDES.value
_MADE = Relation.MADE_DECISION.value
# Sections of the batch's write statement (run after its nodes and edges are written), keyed by
# what they recompute: a batch includes only those it touches.
HISTORY_SECTIONS: dict[str, list[str]] = {}
_SECTIONS = [
    # Links that no longer hold go (the ones computed for this batch are written with its edges).
    "MATCH (e:Entity:ErrorResolution) WHERE e.group_id = $group_id AND e.signature IN $signatures "
    f"MATCH (e)-[r:RELATES_TO {{name: '{_SEEN}'}}]->(:Entity) WHERE NOT r.uuid IN $linked DELETE r",
    "UNWIND $decisions_touched AS _ MATCH (d:Entity:Decision) WHERE d.group_id = $group_id "
    f"MATCH (d)-[r:RELATES_TO {{name: '{_SUPERSEDES}'}}]->(:Entity) WHERE NOT r.uuid IN $linked DELETE r",
    f"UNWIND $decisions_touched AS _ MATCH (:Entity:Session)-[r:RELATES_TO {{name: '{_MADE}'}}]->(d:Entity:Decision) "
    "WHERE d.group_id = $group_id AND r.invalid_at IS NOT NULL AND NOT d.uuid IN [s IN $superseded | s.uuid] "
    "SET r.invalid_at = null, r.expired_at = null",
    f"UNWIND $superseded AS s MATCH (:Entity:Session)-[r:RELATES_TO {{name: '{_MADE}'}}]->(d:Entity:Decision {{uuid: s.uuid}}) "
    "SET r.invalid_at = s.at, r.expired_at = s.at",
    # A setting's value ends where the next change of it begins.
    "MATCH (c:Entity:ConfigChange) WHERE c.group_id = $group_id AND (c.file + $key_sep + c.setting) IN $config_keys "
    f"MATCH (:Entity:Session)-[r:RELATES_TO {{name: '{_CONFIG}'}}]->(c) "
    "WITH c.file AS file, c.setting AS setting, r ORDER BY r.valid_at, r.uuid "
    "WITH file, setting, collect(r) AS changes UNWIND range(0, size(changes) - 1) AS i "
    "WITH changes[i] AS r, CASE WHEN i + 1 < size(changes) THEN changes[i + 1].valid_at ELSE null END AS ended "
    # Only what changes is written: most of a long chain already holds its dates.
    "WHERE NOT ((r.invalid_at IS NULL AND ended IS NULL) OR coalesce(r.invalid_at = ended, false)) "
    "SET r.invalid_at = ended, r.expired_at = ended",
]
HISTORY_SECTIONS.update(errors=_SECTIONS[:1], decisions=_SECTIONS[1:4], config=_SECTIONS[4:])


@dataclass
class History:
    """What a write touches: settings (file, setting) to re-date, error signatures to relink,
    and whether decisions were written or removed (their SUPERSEDES links are recomputed)."""

    config_keys: set[tuple[str, str]] = field(default_factory=set)
    signatures: set[str] = field(default_factory=set)
    decisions: bool = False

    def __bool__(self) -> bool:
        return bool(self.config_keys or self.signatures or self.decisions)

    @classmethod
    def of(cls, graphs: Iterable[SessionGraph]) -> History:
        touched = cls()
        for graph in graphs:
            for node in graph.entities:
                attributes = node.attributes
                if Label.CONFIG_CHANGE.value in node.labels:
                    touched.config_keys.add((attributes["file"], attributes["setting"]))
                elif Label.ERROR_RESOLUTION.value in node.labels and attributes.get("signature"):
                    touched.signatures.add(attributes["signature"])
                elif Label.DECISION.value in node.labels and attributes.get("alternatives"):
                    touched.decisions = True  # only a decision with alternatives can reverse one
        return touched

    def add(self, records: Iterable[Mapping[str, Any]]) -> None:
        """The settings, signatures and decisions of stored records (OLD_HISTORY_QUERY rows)."""
        for r in records:
            if r["file"] is not None and r["setting"] is not None:
                self.config_keys.add((r["file"], r["setting"]))
            if r["signature"]:
                self.signatures.add(r["signature"])
            self.decisions = self.decisions or bool(r["decision"])

    def merge(self, other: History) -> None:
        self.config_keys |= other.config_keys
        self.signatures |= other.signatures
        self.decisions = self.decisions or other.decisions

    @property
    def sections(self) -> tuple[str, ...]:
        """Which of HISTORY_SECTIONS the write needs."""
        wanted = {
            "errors": bool(self.signatures),
            "decisions": self.decisions,
            "config": bool(self.config_keys),
        }
        return tuple(name for name, needed in wanted.items() if needed)

    def params(self, linked: list[str], superseded: list[dict[str, Any]]) -> dict[str, Any]:
        """The write statement's parameters for HISTORY_SECTIONS (`linked`: the uuids of every
        SEEN_BEFORE and SUPERSEDES edge that holds, written now or before)."""
        return {
            "config_keys": [f"{f}{KEY_SEP}{s}" for f, s in sorted(self.config_keys)],
            "key_sep": KEY_SEP,
            "signatures": sorted(self.signatures),
            "decisions_touched": [1] if self.decisions else [],
            "linked": linked,
            "superseded": superseded,
        }


@dataclass(frozen=True, order=True)
class Occurrence:
    """One error or decision of the group: ordered by time, then uuid (the same in any run)."""

    at: datetime
    uuid: str
    session_id: str
    text: str
    detail: str = ""  # an error's fix
    alternatives: tuple[str, ...] = ()
    files: frozenset[str] = frozenset()


def seen_before_edges(
    group: str, stored: Iterable[Mapping[str, Any]], graphs: Iterable[SessionGraph], rewritten: set[str]
) -> list[EntityEdge]:
    """Every SEEN_BEFORE edge among the occurrences of the signatures: the stored ones (but those
    of sessions the batch rewrites) and the batch's own."""
    found: dict[str, dict[str, Occurrence]] = {}
    for r in stored:
        if r["session_id"] not in rewritten:
            found.setdefault(r["signature"], {})[r["uuid"]] = Occurrence(
                as_datetime(r["at"]), r["uuid"], r["session_id"], r["text"], r["detail"]
            )
    for graph in graphs:
        for node in graph.entities:
            signature = node.attributes.get("signature")
            if Label.ERROR_RESOLUTION.value in node.labels and signature:
                found.setdefault(signature, {})[node.uuid] = Occurrence(
                    node.created_at,
                    node.uuid,
                    node.attributes["session_id"],
                    node.name,
                    node.attributes.get("fix", ""),
                )
    edges: list[EntityEdge] = []
    for _, occurrences in sorted(found.items()):
        ordered = sorted(occurrences.values())
        for index, later in enumerate(ordered):
            for earlier in _seen_before_targets(ordered, index):
                fixed = f"; fixed then by {cut(earlier.detail, 160)}" if earlier.detail else ""
                fact = f"'{cut(later.text, 100)}' was seen before in session {earlier.session_id[:8]}{fixed}"
                edges.append(_edge(group, Relation.SEEN_BEFORE, later, earlier, fact))
    return edges


def supersedes_edges(
    group: str, stored: Iterable[Mapping[str, Any]], graphs: Iterable[SessionGraph], rewritten: set[str]
) -> tuple[list[EntityEdge], list[dict[str, Any]]]:
    """Every SUPERSEDES edge among the group's decisions, and the superseded ones with the time
    they stopped holding (the earliest later decision that supersedes them)."""
    decisions: dict[str, Occurrence] = {}
    for r in stored:
        if r["session_id"] not in rewritten:
            decisions[r["uuid"]] = Occurrence(
                as_datetime(r["at"]),
                r["uuid"],
                r["session_id"],
                r["text"] or "",
                alternatives=tuple(r["alternatives"] or ()),
                files=frozenset(p for p in r["files"] or () if p),
            )
    for graph in graphs:
        targets = {e.target_node_uuid for e in graph.edges if e.name == Relation.AFFECTS_FILE.value}
        paths = {n.uuid: n.attributes.get("path") for n in graph.entities if Label.FILE.value in n.labels}
        for node in graph.entities:
            if Label.DECISION.value not in node.labels:
                continue
            files = {
                paths[e.target_node_uuid]
                for e in graph.edges
                if e.source_node_uuid == node.uuid
                and e.target_node_uuid in targets
                and paths.get(e.target_node_uuid)
            }
            decisions[node.uuid] = Occurrence(
                node.created_at,
                node.uuid,
                node.attributes["session_id"],
                node.attributes.get("decision", node.name),
                alternatives=tuple(node.attributes.get("alternatives") or ()),
                files=frozenset(p for p in files if p),
            )
    # Only a decision whose text says one of the later one's alternatives can be reversed by it:
    # an index of the words of each text finds those candidates without comparing every pair.
    having: dict[str, set[str]] = {}
    for decision in decisions.values():
        for word in set(_words(decision.text)):
            having.setdefault(word, set()).add(decision.uuid)
    edges: list[EntityEdge] = []
    ended: dict[str, datetime] = {}
    for later in sorted(decisions.values()):
        candidates: set[str] = set()
        for alternative in later.alternatives:
            words = [w for w in _words(alternative) if w not in _FILLER]
            if words:
                candidates |= set.intersection(*(having.get(w, set()) for w in words))
        for earlier in sorted(decisions[uuid] for uuid in candidates):
            if earlier < later and earlier.session_id != later.session_id and contradicts(later, earlier):
                fact = f"Decision '{cut(later.text, 100)}' supersedes '{cut(earlier.text, 100)}'"
                edges.append(_edge(group, Relation.SUPERSEDES, later, earlier, fact))
                ended[earlier.uuid] = min(ended.get(earlier.uuid, later.at), later.at)
    return edges, [{"uuid": uuid, "at": at} for uuid, at in sorted(ended.items())]


def unwritten(
    edges: Iterable[EntityEdge],
    stored: Iterable[Mapping[str, Any]],
    rewritten: set[str],
    batch_nodes: set[str],
) -> list[EntityEdge]:
    """The edges that are not already in the graph as computed: a link between two records the
    batch leaves alone, whose uuid (made of its two ends) is stored, holds the same fact, so a
    chain of a thousand occurrences costs a batch its new links only, not the whole chain again."""
    held = {u for r in stored if r["session_id"] not in rewritten for u in r["links"] or ()}
    return [
        e
        for e in edges
        if e.uuid not in held or e.source_node_uuid in batch_nodes or e.target_node_uuid in batch_nodes
    ]


def _seen_before_targets(ordered: list[Occurrence], index: int) -> list[Occurrence]:
    """The occurrences an error links to: the latest before it (whose fix is the freshest) and
    the first (where the error began), both in other sessions (one session hitting an error twice,
    a merge conflict in two commits of one rebase, has not seen it before); the ones between are
    a hop further along the chain."""
    session = ordered[index].session_id
    prior = [o for o in ordered[:index] if o.session_id != session]
    if not prior:
        return []
    return [prior[0]] if len(prior) == 1 else [prior[0], prior[-1]]


def contradicts(later: Occurrence, earlier: Occurrence) -> bool:
    """Each turns down what the other chose, about the same files when both name files. What a
    decision chose is its text without what it turned down: "X instead of Y" said twice names Y in
    both texts, and is the same choice, not a reversal."""
    if later.files and earlier.files and not later.files & earlier.files:
        return False
    return any(_mentions(_chosen(earlier), a) for a in later.alternatives) and any(
        _mentions(_chosen(later), a) for a in earlier.alternatives
    )


def _chosen(decision: Occurrence) -> str:
    """The decision's text with each of its own alternatives taken out."""
    text = " ".join(_words(decision.text))
    for alternative in decision.alternatives:
        phrase = " ".join(_words(alternative))
        if phrase:
            text = f" {text} ".replace(f" {phrase} ", " ").strip()
    return text


_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#-]*")
_FILLER = frozenset({"a", "an", "the", "to", "of", "in", "on", "for", "with", "it", "them", "this", "that"})


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _mentions(text: str, phrase: str) -> bool:
    """Whether `text` says `phrase` (its words in order), for a phrase with a word that means something."""
    words = _words(phrase)
    if not [w for w in words if w not in _FILLER and len(w) > 2]:
        return False
    return f" {' '.join(words)} " in f" {' '.join(_words(text))} "


def _edge(group: str, relation: Relation, later: Occurrence, earlier: Occurrence, fact: str) -> EntityEdge:
    return EntityEdge(
        uuid=edge_uuid(group, relation, later.uuid, earlier.uuid),
        group_id=group,
        source_node_uuid=later.uuid,
        target_node_uuid=earlier.uuid,
        name=relation.value,
        fact=fact,
        episodes=[episode_uuid(group, later.session_id)],
        created_at=later.at,
        valid_at=later.at,
    )


def as_datetime(value: Any) -> datetime:
    """A stored time as a datetime: Neo4j gives its own DateTime, FalkorDB ISO text."""
    if isinstance(value, datetime):
        return value
    if hasattr(value, "to_native"):
        native: datetime = value.to_native()
        return native
    return datetime.fromisoformat(str(value))
