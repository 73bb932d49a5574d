"""`graphiti-sessions mcp`: the MCP server over stdio (for Claude Code, Claude Desktop, any MCP client)."""

from __future__ import annotations

from typing import Any

from .app import main
from .shell import backend_options, pipeline


@main.command()
@backend_options
def mcp(**opts: Any) -> None:
    """Serve the session graph to agents as MCP tools, over stdio.

    Tools: search_sessions, get_decisions, get_error_resolutions, get_config_history,
    get_file_history, get_session_summary, get_commits, get_recap, session_tracking_status. The
    backend options and the config file choose the graph, as for every command.

    \b
    Example (Claude Code):
      claude mcp add graphiti-sessions -- graphiti-sessions mcp
    """
    from graphiti_session_tracking.mcp.server import build_server

    build_server(pipeline(opts, writable=False, check=False)).run("stdio")
