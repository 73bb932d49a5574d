"""The composition root: one place builds, from the configuration, everything a run needs — the
redactor, the tool classifier and summarizer, the embedder, the ledger, the backend and its
writer — and owns the sequence of a run: prepare what changed, open the graph only if something
did, write, record in the ledger. `ingest`, `watch`, `migrate` and the MCP server are thin shells
over a `Pipeline`; none of them builds these parts or repeats the sequence.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from graphiti_session_tracking.config import GRAPHITI_HOME, AppConfig, ConfigError, GraphConfig
from graphiti_session_tracking.graph.backends import BackendLost, open_backend
from graphiti_session_tracking.group_id import GroupId

from .reports import IngestReport, WriteReport

SUMMARY_FILES = GRAPHITI_HOME / "summaries"  # `store_in_graph: false` writes here

# The summarizers, graphiti-core and the LLM clients load when a run needs them: an unchanged
# tree is answered from the ledger without them. Reading, the ledger and the writer load when a
# run does (0.1 s): `search`, the recap and the MCP server's start need none of them.
ROUND_SIZE = 50  # sessions read, summarized and written before the next ones are read

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from graphiti_core.embedder.client import EmbedderClient

    from graphiti_session_tracking.graph.local_embedder import LocalEmbedder
    from graphiti_session_tracking.graph.writer import SessionGraphWriter
    from graphiti_session_tracking.redact import Redactor
    from graphiti_session_tracking.summary import EnhancedSessionSummarizer
    from graphiti_session_tracking.tools import UnifiedToolClassifier

    from .ledger import Ledger
    from .parallel import Readers
    from .policy import Policy
    from .prepare import Planned, Prepared
    from .summary_files import SummaryFiles


@dataclass
class Summarizers:
    """What turns a transcript into a summary: made afresh for every run (every `watch` pass), so
    each reports its own LLM calls and sees tool classifications other processes cached meanwhile."""

    classifier: UnifiedToolClassifier | None = None
    summarizer: EnhancedSessionSummarizer | None = None


class Pipeline:
    """Sources → summaries → graph, built from one configuration (see `build_pipeline`)."""

    def __init__(self, config: AppConfig, graph: GraphConfig, *, use_llm: bool | None = None) -> None:
        self.config = config
        self.graph = graph
        llm = config.llm_settings
        self.llm = llm if use_llm is None else msgspec.structs.replace(llm, enabled=use_llm)
        # The config's fixed group, when it names one, for runs that do not ask for another.
        self.group_id = GroupId(config.group_id) if config.group_id else None

    def check(self) -> None:
        """Build what the configuration describes now, so a mistake in it (a bad pattern, a
        missing API key) stops the command before any work; raises ConfigError."""
        self.redactor  # noqa: B018 - built for its errors
        self.summarizers()
        self.embedder  # noqa: B018

    @cached_property
    def redactor(self) -> Redactor:
        """The secret redactor with the config's extra patterns and allowlist."""
        from graphiti_session_tracking.redact import Redactor

        settings = self.config.session_tracking.redaction
        try:
            return Redactor([(p.kind, p.pattern) for p in settings.extra_patterns], settings.allowlist)
        except re.error as exc:
            raise ConfigError(f"invalid redaction pattern: {exc}") from exc

    @cached_property
    def embedder(self) -> EmbedderClient | None:
        """The configured embedder, or None; the LLM module loads only for one."""
        settings = self.config.embedder_settings
        if not settings.enabled:
            return None
        from graphiti_session_tracking.llm import make_embedder

        return make_embedder(settings)

    @cached_property
    def local_embedder(self) -> LocalEmbedder | None:
        """graphiti-sessions' own embedder (vectors only we read), or None when the config turns it
        off; loaded once (0.1 s), from the weights the `wordllama` package ships."""
        if not self.config.embedder_settings.local:
            return None
        from graphiti_session_tracking.graph.local_embedder import LocalEmbedder, LocalEmbedderMissing

        try:
            return LocalEmbedder.load()
        except LocalEmbedderMissing as exc:
            raise ConfigError(f"{exc} (or set embedder.local.enabled: false)") from exc

    def summarizers(self) -> Summarizers:
        """The tool classifier (persistent cache) and, with an LLM, the summarizer."""
        from graphiti_session_tracking.summary import EnhancedSessionSummarizer
        from graphiti_session_tracking.tools import UnifiedToolClassifier

        tracking = self.config.session_tracking
        settings, prompts = tracking.summarization, tracking.summary_prompts
        llm = None
        if self.llm.enabled:
            from graphiti_session_tracking.llm import LLMMeter, make_llm_client

            budget = settings.llm_budget
            meter = LLMMeter(
                budget.session_calls, budget.session_input_tokens, budget.run_calls, budget.run_input_tokens
            )
            llm = make_llm_client(self.llm, self.redactor, meter)
        classifier = UnifiedToolClassifier(llm, self.classification_cache)
        if llm is None:
            return Summarizers(classifier)
        from graphiti_session_tracking.summary.content import ContentFilter

        keep = tracking.filter
        summarizer = EnhancedSessionSummarizer(
            llm,
            settings.template or "default",
            threshold=settings.extraction_threshold,
            max_prompt_chars=settings.max_prompt_chars,
            max_summary_chars=prompts.max_summary_chars,
            timeout_s=self.llm.timeout_s,
            keep=ContentFilter(keep.tool_calls, keep.tool_content, keep.user_messages, keep.agent_messages),
            condense_templates={
                "tool_results": prompts.tool_results,
                "user_messages": prompts.user_messages,
                "agent_messages": prompts.agent_messages,
            },
            concurrency=self.llm.concurrency,
            meter=llm.meter,
        )
        return Summarizers(classifier, summarizer)

    @property
    def classification_cache(self) -> Path:
        settings = self.config.session_tracking.summarization
        return Path(
            settings.tool_classification_cache or GRAPHITI_HOME / "tool_classification_cache.json"
        ).expanduser()

    @cached_property
    def policy(self) -> Policy:
        """What the configuration keeps out of a run."""
        from .policy import Policy

        tracking = self.config.session_tracking
        return Policy(
            excluded_paths=tuple(tracking.excluded_paths),
            base=self.config.transcripts_folder,
            keep_days=tracking.keep_length_days,
            include_decisions=tracking.summarization.include_decisions,
            include_errors=tracking.summarization.include_errors_resolved,
        )

    @property
    def store_in_graph(self) -> bool:
        return self.config.session_tracking.store_in_graph

    def ledger(self) -> Ledger:
        """The ingest ledger of this graph, or of the summary files (use it as a context manager)."""
        from .ledger import Ledger, default_ledger_path

        if not self.store_in_graph:
            return Ledger(SUMMARY_FILES / "ledger.sqlite")
        return Ledger(default_ledger_path(self.graph))

    @asynccontextmanager
    async def writer(self, *, writable: bool = True) -> AsyncIterator[SessionGraphWriter]:
        """The backend opened, with the writer every summary goes through (redacted on entry)."""
        from graphiti_session_tracking.graph.writer import SessionGraphWriter

        async with open_backend(self.graph, writable=writable) as backend:
            yield SessionGraphWriter(
                backend, embedder=self.embedder, redactor=self.redactor, local=self.local_embedder
            )

    async def prepare(
        self,
        sources: list[Path],
        *,
        ledger: Ledger | None,
        group_id: str | None = None,
        force: bool = False,
        since: datetime | None = None,
        on_progress: Callable[[Path], None] | None = None,
    ) -> Prepared:
        """Read and summarize what is new or changed (the summarizers are built only if needed)."""
        from .prepare import prepare

        group_id = group_id or self.group_id

        def tools() -> tuple[UnifiedToolClassifier | None, EnhancedSessionSummarizer | None, Redactor]:
            made = self.summarizers()
            return made.classifier, made.summarizer, self.redactor

        return await prepare(
            sources,
            ledger=ledger,
            group_id=group_id,
            force=force,
            since=since,
            tools=tools,
            on_progress=on_progress,
            policy=self.policy,
        )

    async def ingest(
        self,
        sources: list[Path],
        *,
        ledger: Ledger | None,
        group_id: str | None = None,
        force: bool = False,
        since: datetime | None = None,
        dry_run: bool = False,
        on_read: Callable[[Path], None] | None = None,
        on_prepared: Callable[[IngestReport], None] | None = None,
    ) -> IngestReport:
        """A run, streamed: the sources to read are put in rounds (oldest session first, one
        session's transcripts together), and each round is read, summarized, written and recorded
        in the ledger before the next is read, so memory stays flat however many sessions there
        are, and a run stopped midway keeps what it wrote. The graph is opened only when a round
        has something to write (never in a dry run, never when nothing changed).

        `on_prepared` gets the run's report at once; the run fills it in, so a caller that goes on
        after a backend error (`watch`) still has what was read and written before the error."""
        from .prepare import in_rounds, plan_sources, prepare_planned, whole_reads
        from .write import write

        group_id = group_id or self.group_id
        report = IngestReport()
        if on_prepared is not None:
            on_prepared(report)
        todo = plan_sources(sources, report, ledger, force, since, group_id, self.policy, on_read)
        if not todo:
            return report
        made = self.summarizers()
        tools = (made.classifier, made.summarizer, self.redactor)
        written, remaining = 0, len(todo)  # for a loss counted over the whole run
        rounds = in_rounds(todo, ROUND_SIZE)
        async with contextlib.AsyncExitStack() as stack:
            readers = self._readers(todo, made)
            if readers is not None:
                stack.push(lambda failed, *_: readers.close(at_once=failed is not None))
            target: SessionGraphWriter | SummaryFiles | None = None
            for number, round_ in enumerate(rounds):
                prepared = await prepare_planned(
                    round_, report, ledger, tools, policy=self.policy, on_progress=on_read, readers=readers
                )
                if readers is not None and number + 1 < len(rounds):
                    # the workers read the next round while this one is written
                    readers.ahead(whole_reads(rounds[number + 1]))
                if dry_run or not (prepared.sources or prepared.duplicates):
                    await write(None, prepared, group_id=group_id)
                    remaining -= len(round_)
                    continue
                if target is None:
                    if self.store_in_graph:
                        target = await stack.enter_async_context(self.writer())
                    else:
                        from .summary_files import SummaryFiles

                        target = SummaryFiles(SUMMARY_FILES, self.redactor)
                try:
                    await write(target, prepared, ledger=ledger, group_id=group_id)
                except BackendLost as exc:
                    raise exc.of_run(written, written + remaining) from exc
                written += len(prepared.sources)
                remaining -= len(round_)
        return report

    def _readers(self, todo: list[Planned], made: Summarizers) -> Readers | None:
        """Worker processes for a run with many whole transcripts to read and no LLM to ask."""
        from .parallel import PARALLEL_MIN, Readers, worker_count
        from .prepare import whole_reads

        if len(whole_reads(todo)) < PARALLEL_MIN or made.summarizer is not None or self.llm.enabled:
            return None
        try:
            workers = worker_count()
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        if workers < 2:
            return None
        settings = self.config.session_tracking
        patterns = [(p.kind, p.pattern) for p in settings.redaction.extra_patterns]
        return Readers(workers, (patterns, settings.redaction.allowlist), self.classification_cache)

    async def migrate(
        self,
        files: list[Path],
        *,
        from_graph: bool = False,
        group_id: str | None = None,
        dry_run: bool = False,
    ) -> WriteReport:
        """Summaries of the older session-tracking module (files, or the old graph's episodes)
        written as sessions of this graph."""
        from graphiti_session_tracking.legacy.migrate import migrate_legacy

        group_id = group_id or self.group_id

        if dry_run and not from_graph:  # nothing to read from or write to the graph
            return await migrate_legacy(None, files, group_id=group_id, dry_run=True, redactor=self.redactor)
        from graphiti_session_tracking.graph.writer import SessionGraphWriter

        async with open_backend(self.graph, writable=not dry_run) as backend:
            # The old module's summaries are one more source: they enter the graph by the same writer.
            writer = SessionGraphWriter(
                backend, embedder=self.embedder, redactor=self.redactor, local=self.local_embedder
            )
            return await migrate_legacy(
                backend, files, from_graph=from_graph, group_id=group_id, dry_run=dry_run, writer=writer
            )


def build_pipeline(
    config: AppConfig, graph: GraphConfig | None = None, *, use_llm: bool | None = None
) -> Pipeline:
    """The one place a run's parts are made from the configuration (`graph` overrides the
    config's backend settings, as the command line's options do)."""
    return Pipeline(config, graph or config.graph, use_llm=use_llm)


__all__ = ["Pipeline", "Summarizers", "build_pipeline"]
