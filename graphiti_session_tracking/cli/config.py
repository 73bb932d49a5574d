"""`graphiti-sessions config schema`: the JSON Schema of the configuration file."""

from __future__ import annotations

import json

import click

from graphiti_session_tracking.config import json_schema

from .app import main


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
