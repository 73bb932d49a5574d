"""`graphiti-sessions view`: the session graph as a local, read-only web page."""

from __future__ import annotations

from typing import Any

import click

from .app import main
from .shell import UsageFailure, backend_options, pipeline


@main.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port on 127.0.0.1 (default: a free one).",
)
@click.option("--no-open", is_flag=True, help="Do not open a browser; just print the URL.")
@backend_options
def view(port: int, no_open: bool, **opts: Any) -> None:
    """Browse the graph in a web page on 127.0.0.1: projects and their sessions' timeline, each
    session (objective, activity chart, decisions, errors with the sessions that hit them before,
    settings, files, commits, the project's recap), each file's history, and search.

    The first line printed is the URL, with a token that every request needs (403 without it).
    Read-only: nothing is written to the graph. Ctrl-C stops it.

    \b
    Example:
      graphiti-sessions view
      graphiti-sessions view --port 8765 --no-open --db .demo/sessions.falkordb
    """
    from graphiti_session_tracking.view.serve import listen, serve

    sessions = pipeline(opts, writable=False, check=False)
    try:
        sock = listen(port)
    except OSError as exc:
        raise UsageFailure(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from exc

    def announce(url: str) -> None:
        click.echo(url)
        click.echo("serving the session graph read-only; Ctrl-C stops it", err=True)

    serve(sessions, sock, open_browser=not no_open, announce=announce)
