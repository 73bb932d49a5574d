"""EnhancedSessionSummary and its records: what one session did, in a form the graph can hold.

Besides the spec's fields, a summary carries the session's identity (session id, project path,
branch, start and end), because the graph keys and links records by them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, model_validator

Outcome = Literal["completed", "blocked", "in_progress", "abandoned"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecisionRecord(_Record):
    decision: str = Field(min_length=1)
    rationale: str = ""
    alternatives: list[str] | None = None


class ErrorResolution(_Record):
    error: str = Field(min_length=1)
    root_cause: str = ""
    fix: str = ""
    verification: str = ""


class ConfigChange(_Record):
    file: str = Field(min_length=1)
    setting: str = Field(min_length=1)
    old_value: str | None = None
    new_value: str
    reason: str = ""


class TestSummary(_Record):
    __test__ = False  # not a pytest test class

    framework: str = Field(min_length=1)
    total: NonNegativeInt
    passed: NonNegativeInt
    failed: NonNegativeInt
    skipped: NonNegativeInt = 0
    coverage_pct: float | None = Field(default=None, ge=0, le=100)
    failed_tests: list[str] | None = None

    @model_validator(mode="after")
    def _counts_add_up(self) -> TestSummary:
        if self.passed + self.failed + self.skipped > self.total:
            raise ValueError(
                f"passed ({self.passed}) + failed ({self.failed}) + skipped ({self.skipped}) "
                f"exceeds total ({self.total})"
            )
        return self


class EnhancedSessionSummary(_Record):
    """One session, summarized. JSON round-trips exactly (`model_dump_json` / `model_validate_json`)."""

    # Identity: how the graph keys and links this session.
    session_id: str = Field(min_length=1)
    project_path: str | None = None
    git_branch: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    session_file: str | None = None

    # Always present.
    objective: str
    outcome: Outcome

    completed_tasks: list[str] | None = None
    key_decisions: list[DecisionRecord] | None = None
    next_steps: list[str] | None = None
    errors_resolved: list[ErrorResolution] | None = None
    root_cause_analysis: str | None = None
    config_changes: list[ConfigChange] | None = None
    discoveries: list[str] | None = None
    test_results: TestSummary | None = None
    files_modified: list[str] | None = None
    mcp_tools_used: list[str] | None = None

    message_count: NonNegativeInt | None = None
    duration_minutes: NonNegativeInt | None = None

    @model_validator(mode="after")
    def _time_order(self) -> EnhancedSessionSummary:
        if self.started_at and self.ended_at and self.ended_at < self.started_at:
            raise ValueError(f"ended_at ({self.ended_at}) is before started_at ({self.started_at})")
        return self
