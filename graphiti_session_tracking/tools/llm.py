"""The one batched LLM question: "what are these tools and commands for?", and its checked answer.

All calls the heuristics could not place go out in one request (per session) through Graphiti's
`LLMClient`. The answer is checked item by item: a wrong or missing item only loses that item
(the caller falls back to a heuristic guess), never the batch.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from .model import ACTIVITY_DIMENSIONS, ToolDomain, ToolIntent, Verdict

if TYPE_CHECKING:  # graphiti-core is imported when an LLM is configured, not before
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.prompts.models import Message

log = logging.getLogger(__name__)

_MAX_VALUE_CHARS = 300
_MAX_COMMAND_CHARS = 1000


class LLMVerdictItem(BaseModel):
    """One answer of the batch; `id` refers back to the request item."""

    id: int
    intent: ToolIntent
    domain: ToolDomain
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str
    activity_signals: dict[str, float] = Field(default_factory=dict)


class LLMClassificationBatch(BaseModel):
    """The response schema given to the LLM (Graphiti sends it as the structured-output format)."""

    classifications: list[LLMVerdictItem]


@dataclass(frozen=True)
class LLMRequestItem:
    """One thing to classify: a named tool with its (shortened) parameters, or a command line."""

    id: int
    kind: Literal["tool", "bash"]
    name: str  # the tool name, or the unknown executable of a command
    params: Mapping[str, Any]

    def as_prompt(self) -> dict[str, Any]:
        if self.kind == "bash":
            command = str(self.params.get("command", ""))[:_MAX_COMMAND_CHARS]
            return {"id": self.id, "kind": "bash command", "command": command, "unknown_program": self.name}
        return {"id": self.id, "kind": "tool call", "tool_name": self.name, "params": _shorten(self.params)}


def _shorten(value: Any, depth: int = 0) -> Any:
    """Parameters as hints, not payloads: long strings cut, deep or long structures trimmed."""
    if isinstance(value, str):
        return value if len(value) <= _MAX_VALUE_CHARS else value[:_MAX_VALUE_CHARS] + "…"
    if depth >= 3:
        return "…"
    if isinstance(value, Mapping):
        return {str(k): _shorten(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, list | tuple):
        return [_shorten(v, depth + 1) for v in list(value)[:10]]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _shorten(str(value), depth)


SYSTEM_PROMPT = f"""You classify the tool calls and shell commands of a coding-agent session.

For each item give:
- intent: one of {", ".join(i.value for i in ToolIntent)}
  (create: making new things; modify: changing existing things; delete: removing things;
  read: inspecting or retrieving; search: finding things; execute: running processes;
  configure: setting up environment or config; communicate: external APIs, notifications;
  validate: checking correctness, linting, testing; transform: converting or processing data)
- domain: one of {", ".join(d.value for d in ToolDomain)}
- confidence: 0.0-1.0, how sure you are
- reasoning: one short sentence
- activity_signals: how much the call says the session was about each activity, 0.0-1.0, only
  for these names: {", ".join(ACTIVITY_DIMENSIONS)} (building: new functionality; fixing:
  resolving errors; configuring: setup, environment, settings; exploring: research, discovery;
  refactoring: restructuring code; reviewing: analysis, audit; testing: writing or running
  tests; documenting: writing docs). Leave out activities the call says nothing about.

Judge from tool names (mcp__<server>__<tool> is tool <tool> of MCP server <server>), program
names, flags, paths and parameter values. Answer every item, with its id."""


def build_messages(items: Sequence[LLMRequestItem]) -> list[Message]:
    from graphiti_core.prompts.models import Message

    payload = json.dumps([item.as_prompt() for item in items], indent=1, ensure_ascii=False)
    user = (
        f"Classify these {len(items)} items. Respond with JSON: "
        '{"classifications": [{"id": ..., "intent": ..., "domain": ..., "confidence": ..., '
        '"reasoning": ..., "activity_signals": {...}}, ...]}\n\n' + payload
    )
    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content=user)]


def parse_answer(data: Any, ids: set[int]) -> tuple[dict[int, Verdict], list[str]]:
    """The valid verdicts by item id, and what was wrong with the rest of the answer."""
    problems: list[str] = []
    items = data.get("classifications") if isinstance(data, Mapping) else None
    if not isinstance(items, list):
        return {}, ["the answer has no 'classifications' list"]
    verdicts: dict[int, Verdict] = {}
    for raw in items:
        try:
            item = LLMVerdictItem.model_validate(raw)
        except ValidationError as exc:
            problems.append(f"invalid item: {exc.errors()[0].get('msg', exc)}")
            continue
        if item.id not in ids or item.id in verdicts:
            problems.append(f"unexpected or repeated id {item.id}")
            continue
        # An invented dimension ('debugging') is dropped; the rest of the answer still holds.
        signals = {k: v for k, v in item.activity_signals.items() if k in ACTIVITY_DIMENSIONS}
        if len(signals) != len(item.activity_signals):
            problems.append(f"item {item.id}: unknown activity names dropped")
        try:
            verdicts[item.id] = Verdict(
                intent=item.intent,
                domain=item.domain,
                confidence=item.confidence,
                reasoning=item.reasoning,
                activity_signals=signals,
            )
        except ValidationError as exc:
            problems.append(f"item {item.id}: {exc.errors()[0].get('msg', exc)}")
    missing = ids - set(verdicts)
    if missing:
        problems.append(f"no valid answer for item(s) {sorted(missing)}")
    return verdicts, problems


async def infer_verdicts(
    client: LLMClient, items: Sequence[LLMRequestItem]
) -> tuple[dict[int, Verdict], list[str]]:
    """Ask once for all `items`. Transport errors propagate; answer defects come back as problems."""
    from graphiti_core.llm_client.config import ModelSize

    data = await client.generate_response(
        build_messages(items),
        response_model=LLMClassificationBatch,
        model_size=ModelSize.small,
        prompt_name="classify_tool_calls",
    )
    verdicts, problems = parse_answer(data, {item.id for item in items})
    for problem in problems:
        log.warning("tool classification answer: %s", problem)
    return verdicts, problems
