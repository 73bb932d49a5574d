"""The old session-tracking module's summary schema, and one legacy record as read from its source.

`SessionSummarySchema` is the shape users exported as JSON and that the old markdown rendered;
its fields and defaults are those of the old module (shared/LEGACY_FORMAT.md section 1), so an
export that the old module accepted is accepted here, and one it rejected is rejected here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class LegacyFormatError(ValueError):
    """A legacy record that cannot be read. The message always starts with `<source>:<line>: `
    (source is a file path or `episode <uuid>`), so a report can point at it."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(f"{source}:{line}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason


class SessionSummarySchema(BaseModel):
    """The old summary: plain strings, no rationale, duration as free text."""

    # The old model ignored unknown keys; exports sometimes carry extra ones.
    model_config = ConfigDict(extra="ignore")

    objective: str
    completed_tasks: list[str]
    blocked_items: list[str] = Field(default_factory=list)
    next_steps: list[str]
    files_modified: list[str] = Field(default_factory=list)
    documentation_referenced: list[str] = Field(default_factory=list)
    key_decisions: list[str]
    mcp_tools_used: list[str] = Field(default_factory=list)
    token_count: int | None = None
    duration_estimate: str | None = None


@dataclass
class LegacyRecord:
    """One legacy summary with what its source said besides the schema fields.

    `source` names where it came from (`episode <uuid>` or `path:line`); `front_matter` is the
    `graphiti_session_metadata` mapping of newer markdown records; `fields` holds the markdown's
    other `**Name**: value` lines (Status, Created, Handoff File, …) by lower-case name.
    """

    source: str
    summary: SessionSummarySchema
    front_matter: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    title: str | None = None
    sequence: int | None = None
    extra_sections: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # Set when read from the graph.
    episode_uuid: str | None = None
    group_id: str | None = None
    valid_at: datetime | None = None
