"""The `graphiti-sessions` command: one module per command, each a thin shell over the pipeline
(`pipeline/compose.py`) and the query functions (`graph/queries.py`). A command's module is
imported when that command runs (`app.COMMANDS`), so `--version` or a query does not pay for
every other command's imports."""

from .app import main

__all__ = ["main"]
