"""The LLM summarizer: one structured call per session (or per segment of a long one).

The prompt asks only for the fields the session's activity makes important (spec 5.3), over the
collapsed narrative of the session. Facts the transcript states (files, tests, MCP tools, counts,
times, activity, config values) stay as the offline extractor found them; the model contributes
what needs understanding (objective, decisions, root causes, discoveries, next steps). Any failure
(timeout, HTTP error, an answer that does not fit the schema) returns the offline summary with a
note saying why: a session is never lost to the LLM.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from graphiti_session_tracking.transcripts import Session

from .content import KEEP_ALL, ContentFilter, render, segments, session_content, to_condense
from .model import (
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
    Outcome,
    SummarySegment,
)
from .priorities import DEFAULT_THRESHOLD, dynamic_extraction_instructions
from .prompts import PromptTemplate, resolve_template

if TYPE_CHECKING:  # graphiti-core is imported when an LLM is configured, not before
    from graphiti_core.llm_client.client import LLMClient

SYSTEM_PROMPT = (
    "You summarize coding-agent sessions for a knowledge graph that people later ask: what did we "
    "decide and why, which errors did we see and what fixed them, what changed. Be specific and "
    "factual; use only what the session shows; leave a field empty rather than guess."
)


class LLMSessionSummary(BaseModel):
    """What the model is asked to return (the fields that need understanding)."""

    objective: str = Field(description="The session's goal in 1-2 sentences")
    outcome: Outcome
    completed_tasks: list[str] = Field(default_factory=list)
    key_decisions: list[DecisionRecord] = Field(default_factory=list)
    errors_resolved: list[ErrorResolution] = Field(default_factory=list)
    root_cause_analysis: str | None = None
    config_changes: list[ConfigChange] = Field(default_factory=list)
    discoveries: list[str] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)


class Condensed(BaseModel):
    """One message made shorter (the filter's template modes)."""

    summary: str = Field(description="The condensed text")


class EnhancedSessionSummarizer:
    def __init__(
        self,
        llm_client: LLMClient,
        template: str = "default",
        *,
        threshold: float = DEFAULT_THRESHOLD,
        max_prompt_chars: int = 48_000,
        max_summary_chars: int = 500,
        timeout_s: float = 120.0,
        keep: ContentFilter = KEEP_ALL,
        condense_templates: dict[str, str] | None = None,
        concurrency: int = 10,
    ) -> None:
        self.llm_client = llm_client
        self.keep = keep
        # A filter mode of "default" (or true-ish strings) names `summary_prompts`' template.
        self.condense_templates = condense_templates or {}
        self.concurrency = concurrency
        self.template = template  # resolved per session: the project's .graphiti/prompts/ may override
        self.threshold = threshold
        self.max_prompt_chars = max_prompt_chars
        self.max_summary_chars = max_summary_chars
        self.timeout_s = timeout_s

    def template_for(self, session: Session) -> PromptTemplate:
        project = Path(session.project_root) if session.project_root else None
        return resolve_template(self.template, "session_summary", project_dir=project)

    async def condense(self, session: Session) -> tuple[dict[str, str], int, list[str]]:
        """The LLM's shorter version of each message the filter wants condensed (longer than
        `max_summary_chars`), at most `concurrency` requests at once; a failed one keeps the text."""
        wanted = to_condense(session, self.keep, self.max_summary_chars)
        if not wanted:
            return {}, 0, []
        from graphiti_core.llm_client.config import ModelSize

        project = Path(session.project_root) if session.project_root else None
        gate = asyncio.Semaphore(self.concurrency)
        failures: list[str] = []

        async def one(kind: str, mode: str, text: str) -> tuple[str, str | None]:
            value = self.condense_templates.get(kind, "default") if mode == "default" else mode
            template = resolve_template(value, kind, project_dir=project)  # type: ignore[arg-type]
            prompt = template.render(
                content=text,
                context=f"coding session {session.session_id[:8]}",
                max_chars=self.max_summary_chars,
            )
            async with gate:
                try:
                    raw = await asyncio.wait_for(
                        self.llm_client.generate_response(
                            _messages(prompt),
                            Condensed,
                            model_size=ModelSize.small,
                            prompt_name="graphiti_sessions.condense",
                        ),
                        timeout=self.timeout_s,
                    )
                    return text, Condensed.model_validate(raw).summary.strip() or None
                except Exception as exc:
                    failures.append(
                        f"condensing a {kind.replace('_', ' ')[:-1]} failed ({_reason(exc)}); kept cut"
                    )
                    return text, None

        done = await asyncio.gather(*(one(*item) for item in wanted))
        return {text: short for text, short in done if short}, len(wanted), _unique(failures)

    def prompts(
        self,
        session: Session,
        offline: EnhancedSessionSummary,
        condensed: dict[str, str] | None = None,
    ) -> list[tuple[SummarySegment, str]]:
        """The prompt of each segment (one for a session that fits the budget)."""
        template = self.template_for(session)
        instructions = dynamic_extraction_instructions(offline.activity_vector, self.threshold)
        parts = segments(session_content(session, self.keep, condensed), self.max_prompt_chars) or [[]]
        out = []
        for number, part in enumerate(parts, 1):
            first = part[0].message_index if part else 0
            last = part[-1].message_index if part else 0
            context = f"coding session {offline.session_id[:8]}"
            if len(parts) > 1:
                context += f", part {number} of {len(parts)} (messages {first}-{last})"
            prompt = template.render(
                content=render(part) or "(no conversation)",
                context=context,
                max_chars=self.max_summary_chars,
                activity_profile=offline.activity_vector.activity_profile,
                dynamic_extraction_instructions=instructions,
            )
            out.append((SummarySegment(first_message=first, last_message=last), prompt))
        return out

    async def summarize(self, session: Session, offline: EnhancedSessionSummary) -> EnhancedSessionSummary:
        condensed, calls, failures = await self.condense(session)
        problems = [*self.template_for(session).problems, *failures]
        if problems:
            offline = offline.model_copy(update={"notes": [*(offline.notes or []), *problems]})
        answers: list[LLMSessionSummary] = []
        covered: list[SummarySegment] = []
        tokens_in = tokens_out = 0
        for segment, prompt in self.prompts(session, offline, condensed):
            calls += 1
            tokens_in += (len(SYSTEM_PROMPT) + len(prompt)) // 4
            try:
                raw = await asyncio.wait_for(
                    self.llm_client.generate_response(
                        _messages(prompt),
                        LLMSessionSummary,
                        prompt_name="graphiti_sessions.summary",
                    ),
                    timeout=self.timeout_s,
                )
                answer = LLMSessionSummary.model_validate(raw)
            except Exception as exc:  # any failure (HTTP, timeout, schema): keep the offline summary
                reason = _reason(exc)
                return offline.model_copy(
                    update={
                        "llm_calls": calls,
                        "llm_input_tokens": tokens_in,
                        "llm_output_tokens": tokens_out,
                        "notes": [
                            *(offline.notes or []),
                            f"LLM summary failed ({reason}); offline summary kept",
                        ],
                    }
                )
            tokens_out += len(json.dumps(raw, default=str)) // 4
            answers.append(answer)
            covered.append(segment)
        return _combine(offline, answers, covered, calls, tokens_in, tokens_out)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ValidationError):
        return f"answer did not fit the schema: {exc.error_count()} problems"
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0][:200]}" if first else type(exc).__name__


def _unique[T](items: list[T]) -> list[T]:
    seen: list[T] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _combine(
    offline: EnhancedSessionSummary,
    answers: list[LLMSessionSummary],
    covered: list[SummarySegment],
    calls: int,
    tokens_in: int,
    tokens_out: int,
) -> EnhancedSessionSummary:
    """Merge segment answers in order and lay them over the offline facts."""

    def merged[T](values: list[list[T]], fallback: list[T] | None) -> list[T] | None:
        combined = _unique([v for value in values for v in value])
        return combined or fallback

    causes = [a.root_cause_analysis for a in answers if a.root_cause_analysis]
    return offline.model_copy(
        update={
            "objective": answers[0].objective.strip() or offline.objective,
            "outcome": answers[-1].outcome,
            "completed_tasks": merged([a.completed_tasks for a in answers], offline.completed_tasks),
            # The confidence scale and `by` are the offline extractor's; a model's own guess at them is not.
            "key_decisions": merged(
                [
                    [d.model_copy(update={"confidence": None, "by": None}) for d in a.key_decisions]
                    for a in answers
                ],
                offline.key_decisions,
            ),
            "errors_resolved": merged([a.errors_resolved for a in answers], offline.errors_resolved),
            "root_cause_analysis": "\n".join(causes) or offline.root_cause_analysis,
            # Values read from the edits themselves beat the model's retelling of them.
            "config_changes": offline.config_changes or merged([a.config_changes for a in answers], None),
            "discoveries": merged([a.discoveries for a in answers], offline.discoveries),
            "next_steps": answers[-1].next_steps or offline.next_steps,
            "generated_by": "llm",
            "llm_calls": calls,
            "llm_input_tokens": tokens_in,
            "llm_output_tokens": tokens_out,
            "segments": covered if len(covered) > 1 else None,
        }
    )


def _messages(prompt: str) -> list[Any]:
    from graphiti_core.prompts.models import Message

    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content=prompt)]
