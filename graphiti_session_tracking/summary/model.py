"""EnhancedSessionSummary and its records: what one session did, in a form the graph can hold.

Besides the spec's fields, a summary carries the session's identity (session id, project path,
branch, start and end), because the graph keys and links records by them.
"""

from __future__ import annotations

import posixpath
import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PrivateAttr, model_validator

from graphiti_session_tracking.activity import ActivityVector

Outcome = Literal["completed", "blocked", "in_progress", "abandoned"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecisionRecord(_Record):
    """A choice the session made. `confidence` (0..1) says how sure the extractor is that this is
    a decision (see summary/decisions/ for the scale); `by` is who made it. Both are optional:
    summaries written before they existed, and the LLM summarizer's, leave them out."""

    decision: str = Field(min_length=1)
    rationale: str = ""
    alternatives: list[str] | None = None
    confidence: float | None = Field(default=None, ge=0, le=1)
    by: Literal["assistant", "user"] | None = None


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


class CommitRecord(_Record):
    """A commit the session made, from its own `git commit` output (and `git show` when the
    repository is on this machine): what a reader needs to go from a commit back to its session."""

    sha: str = Field(min_length=4, pattern=r"^[0-9a-f]+$")
    message: str = ""
    branch: str | None = None
    committed_at: datetime | None = None
    files: list[str] | None = None
    pushed: bool = False
    pull_request: int | None = Field(default=None, ge=1)


class ToolUse(_Record):
    """One tool the session used: how often, and what it was mostly used for."""

    name: str = Field(min_length=1)
    calls: NonNegativeInt
    intent: str
    domain: str


class SummarySegment(_Record):
    """A part of a long session summarized on its own: the messages it covers (inclusive)."""

    first_message: NonNegativeInt
    last_message: NonNegativeInt


class EnhancedSessionSummary(_Record):
    """One session, summarized. JSON round-trips exactly (`model_dump_json` / `model_validate_json`)."""

    # Identity: how the graph keys and links this session.
    session_id: str = Field(min_length=1)
    project_path: str | None = None
    git_branch: str | None = None
    # The coding agent that wrote the transcript ("claude-code", "codex", …) and its version.
    agent: str | None = None
    agent_version: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    session_file: str | None = None

    # Always present.
    activity_vector: ActivityVector = Field(default_factory=ActivityVector)
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
    # Documents the session consulted (a legacy summary's `documentation_referenced`): the graph
    # links them to the session (REFERENCED_DOC), apart from the files it modified.
    documentation_referenced: list[str] | None = None
    mcp_tools_used: list[str] | None = None
    commits: list[CommitRecord] | None = None
    tools_used: list[ToolUse] | None = None

    message_count: NonNegativeInt | None = None
    duration_minutes: NonNegativeInt | None = None

    # How the summary was made: offline rules only, or with the LLM (calls, estimated tokens).
    generated_by: Literal["offline", "llm"] = "offline"
    llm_calls: NonNegativeInt = 0
    llm_input_tokens: NonNegativeInt = 0
    llm_output_tokens: NonNegativeInt = 0
    segments: list[SummarySegment] | None = None
    notes: list[str] | None = None
    # Facts with no field of their own, kept in the episode content: e.g. a migrated legacy
    # record's token_count, its raw duration text and where it came from. Flat scalars only.
    metadata: dict[str, str | int | float | bool] | None = None
    # (redactor signature, digest of the content it left): set by redact_summary, so that the
    # writer does not redact a summary twice with the same rules; never stored.
    _redacted: tuple[str, str] | None = PrivateAttr(default=None)

    def to_markdown(self) -> str:
        """The summary as Markdown, in the layout of the spec's Appendix A."""
        lines = [
            "# Session Summary",
            "",
            f"**Activity Profile**: {self.activity_vector.activity_profile}",
            f"**Outcome**: {self.outcome}",
            "",
            "## Objective",
            self.objective or "(no request found in the transcript)",
            "",
        ]

        def section(title: str, body: list[str]) -> None:
            if body:
                lines.extend([f"## {title}", "", *body, ""])

        section("Completed", [f"- {t}" for t in self.completed_tasks or []])
        section("Discoveries", [f"- {d}" for d in self.discoveries or []])
        # An error with neither fix nor verification was never seen resolved: said apart, not
        # under "Errors Resolved".
        for title, resolved in (("Errors Resolved", True), ("Errors Not Resolved", False)):
            errors: list[str] = []
            for err in self.errors_resolved or []:
                if bool(err.fix or err.verification) is not resolved:
                    continue
                heading = _heading(err.error)
                whole = " ".join(err.error.split())
                errors += [f"### {heading}"]
                errors += [
                    f"- **{k}**: {v}"
                    for k, v in (
                        # a heading cut short loses what failed: the line is given whole below it
                        ("Error", whole if heading != whole else ""),
                        ("Root cause", err.root_cause),
                        ("Fix", err.fix),
                        ("Verification", err.verification),
                    )
                    if v
                ]
                errors.append("")
            section(title, errors[:-1])
        section("Root Cause Analysis", [self.root_cause_analysis] if self.root_cause_analysis else [])
        if self.config_changes:
            rows = ["| File | Setting | Change | Reason |", "|------|---------|--------|--------|"]
            for cfg in self.config_changes:
                old = f"`{_cell(cfg.old_value)}`" if cfg.old_value is not None else "(none)"
                rows.append(
                    f"| `{_cell(cfg.file)}` | `{_cell(cfg.setting)}` | {old} → `{_cell(cfg.new_value)}` "
                    f"| {_cell(cfg.reason)} |"
                )
            section("Configuration Changes", rows)
        decisions: list[str] = []
        for dec in self.key_decisions or []:
            decisions.append(
                f"- **{dec.decision}**: {dec.rationale}" if dec.rationale else f"- **{dec.decision}**"
            )
            if dec.alternatives:
                decisions.append(f"  - Alternatives considered: {', '.join(dec.alternatives)}")
        section("Key Decisions", decisions)
        if self.test_results:
            tr = self.test_results
            tests = [f"- **Framework**: {tr.framework}", f"- **Results**: {tr.passed}/{tr.total} passed"]
            if tr.failed:
                failed = f": {', '.join(tr.failed_tests)}" if tr.failed_tests else ""
                tests.append(f"- **Failed**: {tr.failed}{failed}")
            if tr.skipped:
                tests.append(f"- **Skipped**: {tr.skipped}")
            if tr.coverage_pct is not None:
                tests.append(f"- **Coverage**: {tr.coverage_pct:.1f}%")
            section("Test Results", tests)
        section("Files Modified", [f"- `{f}`" for f in self.files_modified or []] or ["- (none)"])
        section("Documentation Referenced", [f"- `{d}`" for d in self.documentation_referenced or []])
        section("MCP Tools Used", [f"- `{t}`" for t in self.mcp_tools_used or []])
        section("Next Steps", [f"- {step}" for step in self.next_steps or []])
        return "\n".join(lines).rstrip() + "\n"

    @model_validator(mode="after")
    def _time_order(self) -> EnhancedSessionSummary:
        if self.started_at and self.ended_at and self.ended_at < self.started_at:
            raise ValueError(f"ended_at ({self.ended_at}) is before started_at ({self.started_at})")
        return self


# A compiler's or linter's `a.go:76:31: message` (TypeScript's and MSBuild's `a.tsx(52,53):
# message`): in a 60-character heading the path would leave no room for what went wrong.
_POSITION = re.compile(
    r"(?P<path>[^\s:]+?\.[A-Za-z0-9]+)(?::(?P<line>\d+)(?::\d+)?:|\((?P<row>\d+),\d+\):)\s+(?P<message>\S.*)",
    re.DOTALL,
)


def _heading(error: str) -> str:
    """An error as a heading: what went wrong first, cut at 60, then where (`file.go:76`)."""
    at = _POSITION.fullmatch(" ".join(error.split()))
    if at is None:
        return _cut(error, 60)
    return f"{_cut(at['message'], 60)} ({posixpath.basename(at['path'])}:{at['line'] or at['row']})"


def _cut(text: str, limit: int) -> str:
    """Cut to `limit` characters with an ellipsis, only when longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _cell(text: str | None) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join((text or "").split()).replace("|", "\\|")
