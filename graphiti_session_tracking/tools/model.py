"""What a tool call was for: intent, domain, confidence and its pull on the 8 activity dimensions.

The classifications are frozen because the classifier hands the same verdict (from its caches) to
many calls; nobody downstream may change a verdict another call shares.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphiti_session_tracking.activity import ACTIVITY_DIMENSIONS as ACTIVITY_DIMENSIONS

ClassificationSource = Literal["cache", "heuristic", "llm"]


class ToolIntent(StrEnum):
    """What the tool invocation is trying to accomplish."""

    CREATE = "create"
    MODIFY = "modify"
    DELETE = "delete"
    READ = "read"
    SEARCH = "search"
    EXECUTE = "execute"
    CONFIGURE = "configure"
    COMMUNICATE = "communicate"
    VALIDATE = "validate"
    TRANSFORM = "transform"


class ToolDomain(StrEnum):
    """What area the tool operates in."""

    FILESYSTEM = "filesystem"
    CODE = "code"
    DATABASE = "database"
    NETWORK = "network"
    PROCESS = "process"
    VERSION_CONTROL = "version_control"
    PACKAGE = "package"
    DOCUMENTATION = "documentation"
    TESTING = "testing"
    MEMORY = "memory"
    UNKNOWN = "unknown"


def check_signals(value: dict[str, float]) -> dict[str, float]:
    """Only the 8 activity dimensions, each 0..1: anything else would skew the activity vector."""
    unknown = sorted(set(value) - set(ACTIVITY_DIMENSIONS))
    if unknown:
        raise ValueError(f"unknown activity dimension(s): {', '.join(unknown)}")
    for name, signal in value.items():
        if not 0.0 <= signal <= 1.0:
            raise ValueError(f"activity signal {name}={signal} is outside 0..1")
    return value


class Verdict(BaseModel):
    """The part of a classification that does not depend on the call's own arguments.

    This is what the cache stores and the LLM answers: it applies to every call of the same tool
    (or the same executable), whatever its parameters.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: ToolIntent
    domain: ToolDomain
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str
    activity_signals: dict[str, float] = Field(default_factory=dict)

    _check_signals = field_validator("activity_signals")(check_signals)


class _Classified(Verdict):
    """A verdict applied to one call, with where it came from."""

    source: ClassificationSource

    @property
    def verdict(self) -> Verdict:
        return Verdict.model_validate(self.model_dump(include=set(Verdict.model_fields)))


class ToolClassification(_Classified):
    """A classified tool call (native Claude Code tool, MCP tool, or any other named tool)."""

    tool_name: str
    tool_params: dict[str, Any] | None = None


class BashCommandClassification(_Classified):
    """A classified shell command: its parsed structure (of the segment that decided) and verdict."""

    tool_name: str = "Bash"
    raw_command: str
    base_command: str
    subcommand: str | None = None
    flags: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list)


Classification = ToolClassification | BashCommandClassification
