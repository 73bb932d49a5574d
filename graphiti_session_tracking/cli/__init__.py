"""The `graphiti-sessions` command: one module per command, each a thin shell over the pipeline
(`pipeline/compose.py`) and the query functions (`graph/queries.py`)."""

from . import classify_tools, config, hook, ingest, mcp, migrate, query, recap, search, summarize, watch  # noqa: F401 - registers them
from .app import main

__all__ = ["main"]
