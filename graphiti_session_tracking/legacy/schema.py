"""The old session-tracking module's summary schema, and one legacy record as read from its source.

`SessionSummarySchema` is the shape users exported as JSON and that the old markdown rendered;
its fields and defaults are those of the old module (shared/LEGACY_FORMAT.md section 1), so an
export that the old module accepted is accepted here, and one it rejected is rejected here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class LegacyFormatError(ValueError):
    """A legacy record that cannot be read. The message always starts with `<source>:<line>: `
    (source is a file path or `episode <uuid>`), so a report can point at it."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(f"{source}:{line}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason


class _Legacy(BaseModel):
    """A record the old module wrote: it writes null for an optional field it had nothing for (a
    decision with no alternatives), which means the field's default, not a broken record."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        optional = {name for name, info in cls.model_fields.items() if not info.is_required()}
        return {k: v for k, v in data.items() if not (v is None and k in optional)}


class LegacyDecision(_Legacy):
    """A second-generation decision (the first generation wrote plain strings)."""

    decision: str
    rationale: str = ""
    alternatives: list[str] = Field(default_factory=list)


class LegacyError(_Legacy):
    error: str
    root_cause: str = ""
    fix: str = ""
    verification: str = ""


class LegacyConfigChange(_Legacy):
    """`change` is free text ("60 -> 3600", "added", "set to 3600")."""

    file: str
    setting: str
    change: str = ""
    reason: str = ""


class LegacyTestResults(_Legacy):
    framework: str = ""
    passed: int = Field(default=0, ge=0)
    failed: int = Field(default=0, ge=0)
    coverage: float | None = Field(default=None, ge=0, le=100)


class SessionSummarySchema(_Legacy):
    """The old summary, both generations (shared/LEGACY_FORMAT.md sections 1 and 4): the first
    wrote plain strings and free-text durations; the second added rationale and alternatives,
    errors resolved, config changes, test results and the activity profile, and defaulted every
    list but completed_tasks and next_steps to empty."""

    # The old model ignored unknown keys; exports sometimes carry extra ones.
    objective: str
    completed_tasks: list[str]
    blocked_items: list[str] = Field(default_factory=list)
    next_steps: list[str]
    files_modified: list[str] = Field(default_factory=list)
    documentation_referenced: list[str] = Field(default_factory=list)
    key_decisions: list[str | LegacyDecision] = Field(default_factory=list)
    mcp_tools_used: list[str] = Field(default_factory=list)
    token_count: int | None = None
    duration_estimate: str | None = None
    errors_resolved: list[LegacyError] = Field(default_factory=list)
    config_changes: list[LegacyConfigChange] = Field(default_factory=list)
    test_results: LegacyTestResults | None = None
    activity_profile: str | None = None  # "fixing (0.80), testing (0.50)"


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
