"""The graph contract: the fixed set of labels and relation names, uuid keys, the group of a summary.

Every label and relation name that reaches a Cypher text comes from the enums here; everything
else travels as a query parameter.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from graphiti_session_tracking.group_id import GroupId

if TYPE_CHECKING:
    from graphiti_session_tracking.summary.model import EnhancedSessionSummary


class Label(StrEnum):
    """Entity type labels; every entity node also carries :Entity."""

    SESSION = "Session"
    DECISION = "Decision"
    ERROR_RESOLUTION = "ErrorResolution"
    CONFIG_CHANGE = "ConfigChange"
    FILE = "File"
    TOOL = "Tool"
    TEST_RUN = "TestRun"
    TASK = "Task"
    DISCOVERY = "Discovery"
    COMMIT = "Commit"


class Relation(StrEnum):
    """Relation types, stored in the `name` of Graphiti's RELATES_TO edges."""

    MADE_DECISION = "MADE_DECISION"
    RESOLVED_ERROR = "RESOLVED_ERROR"
    CHANGED_CONFIG = "CHANGED_CONFIG"
    MODIFIED_FILE = "MODIFIED_FILE"
    USED_TOOL = "USED_TOOL"
    RAN_TESTS = "RAN_TESTS"
    COMPLETED_TASK = "COMPLETED_TASK"
    PLANNED_NEXT = "PLANNED_NEXT"
    DISCOVERED = "DISCOVERED"
    CONFIG_IN_FILE = "CONFIG_IN_FILE"
    AFFECTS_FILE = "AFFECTS_FILE"
    CONTINUES = "CONTINUES"
    SEEN_BEFORE = "SEEN_BEFORE"  # an ErrorResolution to an earlier one of the same signature (same project)
    SUPERSEDES = "SUPERSEDES"  # a Decision to an earlier one about the same subject that it replaces
    REFERENCED_DOC = "REFERENCED_DOC"  # Session to a File it consulted (legacy documentation_referenced)
    MADE_COMMIT = "MADE_COMMIT"  # Session to a Commit it made
    COMMITTED_FILE = "COMMITTED_FILE"  # Commit to a File it changed


# File and Tool nodes are shared by every session of a group; all other entities belong to one session.
SHARED_LABELS = frozenset({Label.FILE, Label.TOOL})

EPISODE_SOURCE_DESCRIPTION = "graphiti-sessions summary"

_NAMESPACE = uuid.UUID("5d1b6f0e-9a57-4c1e-8f0e-6a7c2f4b9e31")


def resolve_group_id(summary: EnhancedSessionSummary, group_id: str | None) -> GroupId:
    """The group a summary goes to: the one asked for (checked), else its project's."""
    if group_id is not None:
        return GroupId(group_id)
    return GroupId.for_project(summary.project_path or "unknown-project")


def entity_uuid(group_id: str, label: Label, key: str) -> str:
    """Deterministic uuid of an entity: the same record always gets the same uuid."""
    return str(uuid.uuid5(_NAMESPACE, f"{group_id}\x1f{label.value}\x1f{key}"))


def edge_uuid(group_id: str, relation: Relation, source_uuid: str, target_uuid: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{group_id}\x1f{relation.value}\x1f{source_uuid}\x1f{target_uuid}"))


def episode_uuid(group_id: str, session_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{group_id}\x1fEpisodic\x1f{session_id}"))


def mentions_uuid(episode: str, entity: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"MENTIONS\x1f{episode}\x1f{entity}"))


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def iso_time(value: datetime | None) -> str | None:
    """How Session start and end times are stored: ISO 8601 in UTC, comparable as text."""
    aware = _aware(value)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00") if aware else None


DEFAULT_SEARCH_LIMIT = 10
# The records the local embedder gives a vector (graph/vectors.py): what people ask about in their own words.
EMBEDDED_LABELS = (Label.SESSION, Label.DECISION, Label.ERROR_RESOLUTION, Label.CONFIG_CHANGE)

# What `--type` narrows to: entities with this label, and relations with these names.
SEARCH_TYPES: dict[str, tuple[Label | None, tuple[Relation, ...]]] = {
    "session": (Label.SESSION, (Relation.CONTINUES,)),
    "decision": (Label.DECISION, (Relation.MADE_DECISION,)),
    "error": (Label.ERROR_RESOLUTION, (Relation.RESOLVED_ERROR,)),
    "config": (Label.CONFIG_CHANGE, (Relation.CHANGED_CONFIG, Relation.CONFIG_IN_FILE)),
    "file": (Label.FILE, (Relation.MODIFIED_FILE, Relation.AFFECTS_FILE)),
    "tool": (Label.TOOL, (Relation.USED_TOOL,)),
    "test": (Label.TEST_RUN, (Relation.RAN_TESTS,)),
    "task": (Label.TASK, (Relation.COMPLETED_TASK, Relation.PLANNED_NEXT)),
    "discovery": (Label.DISCOVERY, (Relation.DISCOVERED,)),
    "commit": (Label.COMMIT, (Relation.MADE_COMMIT, Relation.COMMITTED_FILE)),
    "episode": (None, ()),
}
