"""Pluggable prompt templates: `default`, a path to a .md file, or an inline string.

`default` looks for the template's file name in the project's `.graphiti/prompts/`, then in
`~/.graphiti/prompts/`, then takes the built-in one from the package. Templates use `{content}`,
`{context}`, `{max_chars}`, `{activity_profile}` and `{dynamic_extraction_instructions}`; any other
brace text is left alone (JSON examples work), and `{{name}}` writes a literal `{name}`. A
template without `{content}`, with an unknown `{variable}`, or naming a missing file is reported
when it is loaded and the built-in template is used instead: a summary is never lost to a typo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

from graphiti_session_tracking.config import GRAPHITI_HOME

PromptKind = Literal["session_summary", "tool_results", "user_messages", "agent_messages"]

# The session's prompt, and those condensing one message when `session_tracking.filter` asks.
TEMPLATE_FILES: dict[PromptKind, str] = {
    "session_summary": "default-session-summary.md",
    "tool_results": "default-tool-content.md",
    "user_messages": "default-user-messages.md",
    "agent_messages": "default-agent-messages.md",
}
VARIABLES = frozenset(
    {"content", "context", "max_chars", "activity_profile", "dynamic_extraction_instructions"}
)

# {{name}} is an escaped literal; {name} a variable; anything else (JSON braces) is plain text.
_TOKEN = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class PromptTemplate:
    kind: PromptKind
    text: str
    origin: str  # "built-in", a file path, or "inline"
    problems: tuple[str, ...] = field(default=())

    def render(self, **values: object) -> str:
        """Fill the variables; a variable the caller did not give becomes an empty string."""

        def substitute(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                return "{" + match.group(1) + "}"
            return str(values.get(match.group(2), ""))

        return _TOKEN.sub(substitute, self.text)


def builtin_template(kind: PromptKind) -> PromptTemplate:
    text = (
        resources.files("graphiti_session_tracking.prompts").joinpath(TEMPLATE_FILES[kind]).read_text("utf-8")
    )
    return PromptTemplate(kind, text, "built-in")


def template_problems(text: str) -> list[str]:
    """What is wrong with a template's text (empty when it is usable)."""
    used = {m.group(2) for m in _TOKEN.finditer(text) if m.group(2)}
    problems = [f"unknown variable {{{name}}}" for name in sorted(used - VARIABLES)]
    if "content" not in used:
        problems.append("no {content} variable, so the session would never reach the model")
    return problems


def resolve_template(
    value: str, kind: PromptKind, project_dir: Path | None = None, home: Path | None = None
) -> PromptTemplate:
    """The template a config value names; problems are reported on the result, never raised."""
    home = home or GRAPHITI_HOME
    if value in ("default", TEMPLATE_FILES[kind]):
        candidates = [home / "prompts" / TEMPLATE_FILES[kind]]
        if project_dir is not None:
            candidates.insert(0, project_dir / ".graphiti" / "prompts" / TEMPLATE_FILES[kind])
        for candidate in candidates:
            if candidate.is_file():
                return _checked(kind, candidate.read_text("utf-8"), str(candidate))
        return builtin_template(kind)
    path = Path(value).expanduser()
    looks_like_path = "\n" not in value and (value.endswith((".md", ".txt")) or "/" in value)
    for candidate in (path, home / "prompts" / value):
        if looks_like_path and candidate.is_file():
            return _checked(kind, candidate.read_text("utf-8"), str(candidate))
    if looks_like_path and "{" not in value:
        return _fallback(kind, value, [f"template file not found: {value}"])
    return _checked(kind, value, "inline")


def _checked(kind: PromptKind, text: str, origin: str) -> PromptTemplate:
    problems = template_problems(text)
    if problems:
        return _fallback(kind, origin, problems)
    return PromptTemplate(kind, text, origin)


def _fallback(kind: PromptKind, origin: str, problems: list[str]) -> PromptTemplate:
    builtin = builtin_template(kind)
    reported = tuple(f"{kind} template {origin}: {p}; using the built-in template" for p in problems)
    return PromptTemplate(kind, builtin.text, "built-in", reported)
