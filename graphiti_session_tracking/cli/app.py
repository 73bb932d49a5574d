"""The `graphiti-sessions` command group: how a run is stopped and how a failure is shown.

Exit codes: 0 success, 1 some inputs failed (all good inputs still done), 2 usage or
configuration errors (including an unreachable backend).
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import sys
from typing import Any

import click

from graphiti_session_tracking.config import ConfigError

from .shell import UsageFailure

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

# The drivers log each failed query (Graphiti's with all its parameters: whole batches of summaries)
# and each dropped connection before raising; the command's own error says what failed, in one line.
for _noisy in ("graphiti_core.driver.falkordb_driver", "graphiti_core.driver.neo4j_driver", "neo4j"):
    logging.getLogger(_noisy).setLevel(logging.CRITICAL)


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


# Each command and the module that defines it (registering it on `main` when imported).
COMMANDS = {
    "classify-tools": "classify_tools",
    "config": "config",
    "hook": "hook",
    "ingest": "ingest",
    "mcp": "mcp",
    "migrate": "migrate",
    "query": "query",
    "recap": "recap",
    "search": "search",
    "setup": "setup",
    "summarize": "summarize",
    "view": "view",
    "watch": "watch",
}


class _Main(click.Group):
    """The command group: commands are imported when used; signals stop cleanly, and a system or
    configuration error is one line, not a traceback (UsageFailure, which masks any password
    inside a URI it shows)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            importlib.import_module(f"{__package__}.{COMMANDS[cmd_name]}")
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _stop_on_signal)
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise UsageFailure(str(exc)) from exc
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise UsageFailure(f"{exc.strerror or exc}{where}") from exc
        except Exception as exc:
            # The ledger's database: only a command that imported sqlite3 can fail in it.
            ledger = sys.modules.get("sqlite3")
            if ledger is not None and isinstance(exc, ledger.Error):
                raise UsageFailure(f"the ingest ledger failed: {exc}") from exc
            raise


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphiti-sessions")
def main() -> None:
    """Turn coding-agent sessions into a Graphiti knowledge graph, and ask it questions.

    \b
    Example:
      graphiti-sessions ingest ~/.claude/projects
      graphiti-sessions query files --json
    """
