"""The `graphiti-sessions` command: one module per command, each a thin shell over the pipeline
(`pipeline/compose.py`) and the query functions (`graph/queries.py`). A command's module is
imported when that command runs (`app.COMMANDS`), so `--version` or a query does not pay for
every other command's imports; a question's database starts loading before any of them
(`early.py`)."""

import sys


def main(args: list[str] | None = None) -> None:
    """Run the command line (`args`, else the process's own arguments)."""
    from .early import open_graph_early

    open_graph_early(sys.argv[1:] if args is None else args)
    from .app import main as group

    group(args)


__all__ = ["main"]
