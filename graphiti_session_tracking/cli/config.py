"""`graphiti-sessions config init|validate|schema|graphiti-mcp`: the configuration file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from graphiti_session_tracking.config import (
    ConfigError,
    find_config_file,
    json_schema,
    load_config,
    starter_config,
)
from graphiti_session_tracking.private_files import private_folder, write_private
from graphiti_session_tracking.uri import mask_uri

from .app import main
from .shell import UsageFailure, backend_options, graph_config, group_ids


@main.group()
def config() -> None:
    """The configuration file (graphiti.config.json, shared with the Graphiti MCP server)."""


@config.command()
def schema() -> None:
    """Print the JSON Schema of the config file (as in graphiti.config.schema.json).

    \b
    Example:
      graphiti-sessions config schema > graphiti.config.schema.json
    """
    click.echo(json.dumps(json_schema(), indent=2))


@config.command()
@click.argument("file", type=click.Path(path_type=Path), default=Path("graphiti.config.json"))
@click.option("--force", is_flag=True, help="Replace an existing file.")
def init(file: Path, force: bool) -> None:
    """Write a starting config file: the sections graphiti-sessions reads, at their defaults.

    \b
    Example:
      graphiti-sessions config init            # ./graphiti.config.json
      graphiti-sessions config init ~/.graphiti/graphiti.config.json
    """
    if file.exists() and not force:
        raise UsageFailure(f"{file} exists: edit it, or pass --force to replace it")
    # New files and folders are the user's only, as everything we write; a file replaced with
    # --force keeps the mode the user gave it.
    private_folder(file.parent)
    write_private(file, json.dumps(starter_config(), indent=2) + "\n", keep_mode=True)
    schema_file = file.parent / "graphiti.config.schema.json"
    if not schema_file.exists():
        write_private(schema_file, json.dumps(json_schema(), indent=2) + "\n")
    click.echo(f"wrote {file} (schema: {schema_file})")


@config.command()
@click.argument("file", type=click.Path(path_type=Path), required=False)
def validate(file: Path | None) -> None:
    """Check a config file (default: the one commands would use) and say what it sets.

    \b
    Example:
      graphiti-sessions config validate graphiti.config.json
    """
    try:
        path = find_config_file(file)
        loaded = load_config(path) if path is not None else None
    except ConfigError as exc:
        raise UsageFailure(str(exc)) from exc
    if path is None or loaded is None:
        click.echo("no config file found: the built-in defaults apply (embedded FalkorDB Lite, no LLM)")
        return
    graph, tracking = loaded.graph, loaded.session_tracking
    where = graph.location
    kept = sorted(k for k in loaded.extra if not k.startswith("$"))
    kept += [
        k
        for k in (
            "search",
            "logging",
            "performance",
            "mcp_server",
            "mcp_tools",
            "daemon",
            "resilience",
            "llm_resilience",
            "extraction",
            "project_overrides",
        )
        if getattr(loaded, k) is not None
    ]
    click.echo(f"{path}: valid")
    click.echo(f"  graph: {graph.backend} at {where}")
    click.echo(
        f"  llm: {'on, ' + loaded.llm.default_model if tracking.auto_summarize else 'off (auto_summarize false)'}"
    )
    embedder = loaded.embedder
    click.echo(
        f"  embedder: {f'{embedder.model}, {embedder.dimensions} dimensions' if embedder.enabled else 'off'}"
    )
    click.echo(f"  group: {loaded.group_id or 'one per project'}; transcripts: {loaded.transcripts_folder}")
    if kept:
        click.echo(f"  left for the Graphiti MCP server: {', '.join(sorted(kept))}")


@config.command("graphiti-mcp")
@click.option(
    "--config-yaml",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="The Graphiti MCP server's config.yaml, to check for mismatches.",
)
@backend_options
def graphiti_mcp(config_yaml: Path | None, **opts: Any) -> None:
    """What the Graphiti MCP server's config.yaml needs to find the sessions, and what in an
    existing one would stop it (other database, other embedder, no group ids). Exit 1 on a mismatch.

    \b
    Example:
      graphiti-sessions config graphiti-mcp --config-yaml ~/graphiti/mcp_server/config/config.yaml
    """
    from graphiti_session_tracking.graph.backends import BackendError
    from graphiti_session_tracking.graph.graphiti_mcp import advise

    loaded, graph = graph_config(opts, writable=None)
    try:
        found = group_ids(graph)
    except BackendError as exc:
        found = []
        click.echo(f"warning: cannot read the graph's groups: {mask_uri(str(exc))}", err=True)
    advice = advise(loaded, graph, found, config_yaml)
    click.echo("# Put into the Graphiti MCP server's config.yaml (append the entity types to yours):")
    click.echo(advice.to_yaml(), nl=False)
    if found:
        click.echo(f"# group_ids to pass to search_nodes / search_memory_facts: {found}")
    for warning in advice.warnings:
        click.echo(f"warning: {mask_uri(warning)}", err=True)
    if config_yaml is not None and any(w.startswith(str(config_yaml)) for w in advice.warnings):
        sys.exit(1)
