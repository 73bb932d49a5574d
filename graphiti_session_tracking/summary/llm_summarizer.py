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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from graphiti_session_tracking.transcripts import Session

from .content import KEEP_ALL, ContentFilter, ContentLine, fit, render, segments, session_content, to_condense
from .errors import failed_in_form_only
from .files import relative_path
from .llm_merge import merge_config, merge_decisions, merge_errors, words
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

    from graphiti_session_tracking.llm import LLMMeter

SYSTEM_PROMPT = (
    "You summarize coding-agent sessions for a knowledge graph that people later ask: what did we "
    "decide and why, which errors did we see and what fixed them, what changed. Be specific and "
    "factual; use only what the session shows; leave a field empty rather than guess.\n"
    "An error is a failure the work hit (a failing command, build, test, lint, type check, request "
    "or deployment, or one the user reports), whatever the channel: a failed call, output of a "
    "command that still succeeded, a background process, a curl body, a timeout, a user's paste, a "
    "diagnostic quoted in the assistant's thinking. Give the failing line as printed (not a stack "
    "frame, not a PASS line), one record per distinct message or code; the fix only when a later "
    "run or the user shows it gone; the root cause only when the session states it. Not errors: "
    "edit-tool hiccups, a tool call the user or the harness refused or denied (a permission prompt, "
    "an auto-mode denial, a hook of the user's setup), a lookup that found nothing (`ls` or `cat` of "
    "a missing path, a `grep` without match, a command missing while exploring), findings of a "
    "code review or audit, warnings, a test expected to fail first.\n"
    "A decision is a choice that could have gone another way and that someone would later want to "
    "know: between named options, an approach adopted for a stated reason, an architectural or "
    "dependency choice, a scope cut, a trade-off, a user's answer that settles a direction, an "
    "approved plan. State the choice in one sentence, the rationale as stated (empty when none), "
    "the alternatives as whole phrases, and `by` (user or assistant). Not decisions: doing exactly "
    "what the user asked, a diagnosis, a step of a fix, a heading or cut-off sentence, quoted "
    "documents, formulas, to-do items. One record per choice, the final one when it changed.\n"
    "Write in the session's own words: keep the names it used (options, identifiers, files, flags, "
    "commands, values) exactly as written, so a reader can find the record's source."
)
# Characters of the narrative kept for what an earlier part of the session found.
_CARRIED = 1_500
# Tokens of what a rendered prompt adds to its template (context, activity, instructions).
_FILLED_TOKENS = 500


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
        meter: LLMMeter | None = None,
    ) -> None:
        from graphiti_session_tracking.llm import LLMMeter, RedactingLLMClient
        from graphiti_session_tracking.redact import Redactor

        if not isinstance(llm_client, RedactingLLMClient):  # every request redacted and counted
            llm_client = RedactingLLMClient(llm_client, Redactor(), meter or LLMMeter(None, None))
        self.llm_client = llm_client
        self.meter: LLMMeter = llm_client.meter
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

    def wanted_tokens(self, session: Session) -> int:
        """Input tokens the summary would ask for with nothing cut (its prompt and the whole
        narrative): what classifying tools must leave of the session's budget."""
        from graphiti_session_tracking.llm import estimate_tokens

        narrative = render(session_content(session, self.keep))
        # the activity instructions and the offline facts the template adds are short beside this
        return estimate_tokens(SYSTEM_PROMPT + self.template_for(session).text + narrative) + _FILLED_TOKENS

    def plan(
        self, session: Session, offline: EnhancedSessionSummary, condensed: dict[str, str] | None = None
    ) -> tuple[list[list[ContentLine]], list[str]]:
        """The narrative in parts (one for a session that fits), planned within the budget left
        for this session; and notes on what the budget cut."""
        lines = session_content(session, self.keep, condensed)
        overhead = len(SYSTEM_PROMPT) + len(self.render(session, offline, [], "", 1, 1)) + 200
        calls, tokens = self.meter.session_room()
        budget = self.meter.describe()
        if (calls is not None and calls < 1) or (tokens is not None and tokens * 4 < overhead + 2_000):
            return [], [f"LLM budget used up before the summary ({budget}); offline summary kept"]
        notes: list[str] = []
        per_call = self.max_prompt_chars
        if tokens is not None:
            room = tokens * 4
            # A second request pays the prompt again: worth it only when the budget holds more than
            # one request can carry.
            fits = len(render(lines)) + overhead <= min(per_call, room)
            planned = 1 if fits or calls == 1 or room <= per_call + overhead + _CARRIED else 2
            per_call = min(per_call, room // planned - overhead - (_CARRIED if planned > 1 else 0))
            lines, cut = fit(lines, per_call * planned - 200 * planned)
            if cut:
                notes.append(f"LLM budget ({budget}): {cut}")
        parts = segments(lines, per_call) or [[]]
        if calls is not None and len(parts) > calls:  # parts end at message ends: one may spill over
            lines, _ = fit(lines, (per_call - 1_000) * calls)
            parts = segments(lines, per_call)[:calls]
        return parts, notes

    def render(
        self,
        session: Session,
        offline: EnhancedSessionSummary,
        part: list[ContentLine],
        earlier: str,
        number: int,
        of: int,
    ) -> str:
        instructions = dynamic_extraction_instructions(offline.activity_vector, self.threshold)
        context = f"coding session {offline.session_id[:8]}"
        if of > 1 and part:
            context += f", part {number} of {of} (messages {part[0].message_index}-{part[-1].message_index})"
        content = render(part) or "(no conversation)"
        if earlier:
            content = f"(Earlier in this session: {earlier})\n{content}"
        return self.template_for(session).render(
            content=content,
            context=context,
            max_chars=self.max_summary_chars,
            activity_profile=offline.activity_vector.activity_profile,
            dynamic_extraction_instructions=instructions,
        )

    async def summarize(self, session: Session, offline: EnhancedSessionSummary) -> EnhancedSessionSummary:
        condensed, _, failures = await self.condense(session)
        parts, budget_notes = self.plan(session, offline, condensed)
        notes = [*(offline.notes or []), *self.template_for(session).problems, *failures, *budget_notes]
        answers: list[LLMSessionSummary] = []
        covered: list[SummarySegment] = []
        failure: str | None = None
        for number, part in enumerate(parts, 1):
            earlier = _carried(answers) if answers else ""  # what the earlier parts found
            prompt = self.render(session, offline, part, earlier, number, len(parts))
            try:
                raw = await asyncio.wait_for(
                    self.llm_client.generate_response(
                        _messages(prompt), LLMSessionSummary, prompt_name="graphiti_sessions.summary"
                    ),
                    timeout=self.timeout_s,
                )
                answers.append(LLMSessionSummary.model_validate(raw))
            except Exception as exc:  # any failure (HTTP, timeout, schema, budget): what was answered stands
                failure = _reason(exc)
                break
            first = part[0].message_index if part else 0
            covered.append(
                SummarySegment(first_message=first, last_message=part[-1].message_index if part else 0)
            )
        if failure is not None:
            kept = "offline summary kept" if not answers else f"{len(answers)} of {len(parts)} parts used"
            notes.append(f"LLM summary failed ({failure}); {kept}")
        calls, tokens_in, tokens_out = self.meter.session_usage()
        base = offline.model_copy(
            update={
                "notes": _unique(notes) or None,
                "llm_calls": calls,
                "llm_input_tokens": tokens_in,
                "llm_output_tokens": tokens_out,
            }
        )
        return _combine(base, answers, covered, session) if answers else base


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


def _carried(answers: list[LLMSessionSummary]) -> str:
    """What the earlier parts of a long session found, in a few words, for the next part."""
    first = answers[0]
    decided = "; ".join(d.decision for a in answers for d in a.key_decisions)
    errors = "; ".join(e.error for a in answers for e in a.errors_resolved)
    text = f"goal: {first.objective}. Decided: {decided or 'nothing yet'}. Errors: {errors or 'none yet'}."
    return text[:_CARRIED]


def _combine(
    offline: EnhancedSessionSummary,
    answers: list[LLMSessionSummary],
    covered: list[SummarySegment],
    session: Session,
) -> EnhancedSessionSummary:
    """Segment answers in order, merged with the offline records (llm_merge.py)."""

    def merged[T](values: list[list[T]], fallback: list[T] | None) -> list[T] | None:
        combined = _unique([v for value in values for v in value])
        return combined or fallback

    said = words(" ".join(m.text + " " + m.thinking for m in session.messages))
    edited = {relative_path(path, session.project_root) for path in offline.files_modified or []}
    causes = [a.root_cause_analysis for a in answers if a.root_cause_analysis]
    decisions = merge_decisions(
        offline.key_decisions or [], [d for a in answers for d in a.key_decisions], said
    )
    calls = [call for message in session.messages for call in message.tool_calls]
    errors = merge_errors(
        offline.errors_resolved or [], [a.errors_resolved for a in answers], failed_in_form_only(calls)
    )
    config = merge_config(
        offline.config_changes or [], [c for a in answers for c in a.config_changes], edited
    )
    return offline.model_copy(
        update={
            "objective": answers[0].objective.strip() or offline.objective,
            "outcome": answers[-1].outcome,
            "completed_tasks": merged([a.completed_tasks for a in answers], offline.completed_tasks),
            "key_decisions": decisions or None,
            "errors_resolved": errors or None,
            "root_cause_analysis": "\n".join(causes) or offline.root_cause_analysis,
            "config_changes": config or None,
            "discoveries": merged([a.discoveries for a in answers], offline.discoveries),
            "next_steps": answers[-1].next_steps or offline.next_steps,
            "generated_by": "llm",
            "segments": covered if len(covered) > 1 else None,
        }
    )


def _messages(prompt: str) -> list[Any]:
    from graphiti_core.prompts.models import Message

    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content=prompt)]
