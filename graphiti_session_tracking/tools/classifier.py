"""The four-level classifier (spec 3.4): exact cache, pattern cache, heuristics, one batched LLM call.

Levels, per call:
1. exact cache: tool name + normalised parameters (for Bash: the command line);
2. pattern cache: tool name (for Bash: the unknown executable, which only parsing reveals, so
   Bash consults it after the heuristics found no place for the command);
3. heuristics: native tools, name words, BashAnalyzer;
4. LLM: everything left, in ONE request per batch; valid answers are cached (memory and file),
   and anything the LLM could not or did not answer falls back to a heuristic guess (<= 0.4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..transcripts.claude_tools import CLAUDE_TOOL_KINDS
from ..transcripts.kinds import ToolKind
from ..transcripts.model import ToolCall
from .bash import BashAnalysis, BashAnalyzer
from .cache import (
    ClassificationCache,
    bash_exact_key,
    bash_pattern_key,
    default_cache_path,
    tool_keys,
)
from .heuristics import classify_heuristic, fallback_classification
from .llm import LLMRequestItem, build_messages, infer_verdicts
from .model import (
    ACTIVITY_DIMENSIONS,
    Classification,
    ToolClassification,
    Verdict,
)

if TYPE_CHECKING:  # graphiti-core is imported when an LLM is configured, not before
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.prompts.models import Message

# Whether a request of these messages may be sent: the caller's budget decides, before it is made.
Fits = Callable[[list["Message"]], bool]

log = logging.getLogger(__name__)

DEFAULT_MIN_HEURISTIC_CONFIDENCE = 0.6
DEFAULT_MAX_ITEMS_PER_CALL = 100


@dataclass
class ClassifierStats:
    """How calls were classified: hits per level, LLM use and fallbacks."""

    exact_hits: int = 0
    pattern_hits: int = 0
    heuristic_hits: int = 0
    llm_classified: int = 0
    llm_calls: int = 0
    llm_failures: int = 0
    not_sent: int = 0  # requests the caller's budget could not carry (`fits`)
    fallbacks: int = 0

    @property
    def total(self) -> int:
        return (
            self.exact_hits + self.pattern_hits + self.heuristic_hits + self.llm_classified + self.fallbacks
        )

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "total": self.total}


@dataclass
class _Pending:
    """Calls that need the LLM and share one exact key (asked once, answered for all)."""

    request: LLMRequestItem
    exact_key: str
    pattern_key: str
    indices: list[int] = field(default_factory=list)
    partial: ToolClassification | None = None  # a below-threshold name match
    bash: BashAnalysis | None = None


COMMAND_TOOL = "Bash"  # the name command lines are classified (and cached) under


def _is_bash(name: str) -> bool:
    return name.lower() == "bash"


def _command_of(params: Mapping[str, Any] | None) -> str:
    command = (params or {}).get("command")
    return command if isinstance(command, str) else ""


def _with_verdict(base: Classification, verdict: Verdict, source: str) -> Classification:
    return base.model_copy(update={**verdict.model_dump(), "source": source})


def _tool_from_verdict(
    name: str, params: Mapping[str, Any] | None, verdict: Verdict, source: str
) -> ToolClassification:
    return ToolClassification.model_validate(
        {
            "tool_name": name,
            "tool_params": dict(params) if params is not None else None,
            **verdict.model_dump(),
            "source": source,
        }
    )


class ToolClassifier:
    """Classifies (tool name, parameters) pairs; see the module docstring for the levels.

    `cache_path` defaults to `~/.graphiti/tool_classification_cache.json`; `persist=False`
    keeps the cache in memory only. New LLM verdicts are saved after each batch.
    """

    def __init__(
        self,
        llm_client: LLMClient | None = None,
        cache_path: Path | None = None,
        *,
        persist: bool = True,
        min_heuristic_confidence: float = DEFAULT_MIN_HEURISTIC_CONFIDENCE,
        bash_analyzer: BashAnalyzer | None = None,
        max_items_per_call: int = DEFAULT_MAX_ITEMS_PER_CALL,
    ) -> None:
        self.llm_client = llm_client
        self.min_heuristic_confidence = min_heuristic_confidence
        self.bash_analyzer = bash_analyzer or BashAnalyzer()
        self.max_items_per_call = max(1, max_items_per_call)
        self.cache = ClassificationCache((cache_path or default_cache_path()) if persist else None)
        self.stats = ClassifierStats()
        self.llm_problems: list[str] = []

    @property
    def problems(self) -> list[str]:
        """Cache and LLM-answer problems so far, for the caller to show."""
        return [*self.cache.problems, *self.llm_problems]

    def try_heuristic(self, name: str, params: Mapping[str, Any] | None = None) -> Classification | None:
        """Level 3 alone: a confident heuristic classification, or None (the LLM would be asked)."""
        if _is_bash(name):
            analysis = self.bash_analyzer.analyze(_command_of(params))
            return None if analysis.needs_llm else analysis.classification
        found = classify_heuristic(name, params)
        return found if found is not None and found.confidence >= self.min_heuristic_confidence else None

    async def classify_batch(
        self,
        calls: Sequence[tuple[str, Mapping[str, Any] | None]],
        *,
        use_llm: bool = True,
        fits: Fits | None = None,
    ) -> list[Classification]:
        """One classification per (name, params), in order; at most one LLM request per
        `max_items_per_call` unknown calls (none without `use_llm`, and none that `fits` says the
        caller's budget cannot carry: the heuristics' guesses stand)."""
        results: list[Classification | None] = [None] * len(calls)
        pending: dict[str, _Pending] = {}
        for index, (name, params) in enumerate(calls):
            if _is_bash(name):
                results[index] = self._bash_levels(index, name, params, pending)
            else:
                results[index] = self._tool_levels(index, name, params, pending)
        if pending:
            await self._ask_llm(list(pending.values()), calls, results, use_llm, fits)
        if self.cache.dirty:
            self.cache.save()
        done = [r for r in results if r is not None]
        assert len(done) == len(calls)
        return done

    def _tool_levels(
        self, index: int, name: str, params: Mapping[str, Any] | None, pending: dict[str, _Pending]
    ) -> Classification | None:
        exact_key, pattern_key = tool_keys(name, params)
        if (verdict := self.cache.get_exact(exact_key)) is not None:
            self.stats.exact_hits += 1
            return _tool_from_verdict(name, params, verdict, "cache")
        if (verdict := self.cache.get_pattern(pattern_key)) is not None:
            self.stats.pattern_hits += 1
            return _tool_from_verdict(name, params, verdict, "cache")
        found = classify_heuristic(name, params)
        if found is not None and found.confidence >= self.min_heuristic_confidence:
            self.stats.heuristic_hits += 1
            return found
        entry = pending.get(exact_key)
        if entry is None:
            request = LLMRequestItem(id=len(pending), kind="tool", name=name, params=params or {})
            entry = pending[exact_key] = _Pending(request, exact_key, pattern_key, partial=found)
        entry.indices.append(index)
        return None

    def _bash_levels(
        self, index: int, name: str, params: Mapping[str, Any] | None, pending: dict[str, _Pending]
    ) -> Classification | None:
        command = _command_of(params)
        analysis = self.bash_analyzer.analyze(command)
        exact_key = bash_exact_key(command)
        if (verdict := self.cache.get_exact(exact_key)) is not None:
            self.stats.exact_hits += 1
            return _with_verdict(analysis.classification, verdict, "cache")
        if not analysis.needs_llm:
            self.stats.heuristic_hits += 1
            return analysis.classification
        pattern_key = bash_pattern_key(analysis.unknown_executable or "")
        if (verdict := self.cache.get_pattern(pattern_key)) is not None:
            self.stats.pattern_hits += 1
            return _with_verdict(analysis.classification, verdict, "cache")
        entry = pending.get(exact_key)
        if entry is None:
            request = LLMRequestItem(
                id=len(pending),
                kind="bash",
                name=analysis.unknown_executable or "",
                params={"command": command},
            )
            entry = pending[exact_key] = _Pending(request, exact_key, pattern_key, bash=analysis)
        entry.indices.append(index)
        return None

    async def _ask_llm(
        self,
        entries: list[_Pending],
        calls: Sequence[tuple[str, Mapping[str, Any] | None]],
        results: list[Classification | None],
        use_llm: bool,
        fits: Fits | None,
    ) -> None:
        verdicts: dict[int, Verdict] = {}
        if self.llm_client is not None and use_llm:
            for start in range(0, len(entries), self.max_items_per_call):
                chunk = entries[start : start + self.max_items_per_call]
                if fits is not None and not fits(build_messages([e.request for e in chunk])):
                    self.stats.not_sent += 1  # the budget's choice, not a failure: nothing to warn of
                    continue
                self.stats.llm_calls += 1
                try:
                    answered, problems = await infer_verdicts(self.llm_client, [e.request for e in chunk])
                except Exception as exc:  # any LLM failure: the heuristic guesses stand in
                    self.stats.llm_failures += 1
                    message = f"tool classification LLM call failed: {type(exc).__name__}: {exc}"
                    log.warning("%s", message)
                    self.llm_problems.append(message)
                    continue
                self.llm_problems.extend(problems)
                verdicts.update(answered)
        for entry in entries:
            verdict = verdicts.get(entry.request.id)
            if verdict is not None:
                self.cache.put(entry.exact_key, entry.pattern_key, verdict)
            for index in entry.indices:
                name, params = calls[index]
                if verdict is not None:
                    self.stats.llm_classified += 1
                    if entry.bash is not None:
                        results[index] = _with_verdict(entry.bash.classification, verdict, "llm")
                    else:
                        results[index] = _tool_from_verdict(name, params, verdict, "llm")
                else:
                    self.stats.fallbacks += 1
                    if entry.bash is not None:
                        results[index] = entry.bash.classification
                    else:
                        results[index] = fallback_classification(name, params, entry.partial)


def aggregate_signals(classifications: Sequence[Classification]) -> dict[str, float]:
    """Sum of the activity signals per dimension (all 8 present), for the activity vector."""
    total = dict.fromkeys(ACTIVITY_DIMENSIONS, 0.0)
    for classification in classifications:
        for name, value in classification.activity_signals.items():
            total[name] += value
    return {name: round(value, 6) for name, value in total.items()}


class UnifiedToolClassifier:
    """Classifies every tool call of a session: native tools, MCP tools and Bash commands alike,
    with at most one LLM request for all that heuristics and caches cannot place."""

    def __init__(
        self,
        llm_client: LLMClient | None = None,
        cache_path: Path | None = None,
        *,
        persist: bool = True,
        min_heuristic_confidence: float = DEFAULT_MIN_HEURISTIC_CONFIDENCE,
    ) -> None:
        self.tool_classifier = ToolClassifier(
            llm_client,
            cache_path,
            persist=persist,
            min_heuristic_confidence=min_heuristic_confidence,
        )

    @property
    def stats(self) -> ClassifierStats:
        return self.tool_classifier.stats

    @property
    def problems(self) -> list[str]:
        return self.tool_classifier.problems

    async def classify_session(
        self, tool_calls: Sequence[ToolCall], *, use_llm: bool = True, fits: Fits | None = None
    ) -> list[Classification]:
        """One classification per call, in order. Another agent's shell command is analysed as a
        command line (by its `command`); Claude Code's tools keep their names (PowerShell is
        classified as a tool, as the recorded LLM answers of the fidelity bench expect)."""
        return await self.tool_classifier.classify_batch(
            [
                (
                    COMMAND_TOOL
                    if call.kind is ToolKind.COMMAND and call.name not in CLAUDE_TOOL_KINDS
                    else call.name,
                    call.input,
                )
                for call in tool_calls
            ],
            use_llm=use_llm,
            fits=fits,
        )

    @staticmethod
    def aggregate_signals(classifications: Sequence[Classification]) -> dict[str, float]:
        return aggregate_signals(classifications)
