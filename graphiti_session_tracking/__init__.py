"""graphiti-sessions: coding-agent sessions as a Graphiti knowledge graph.

The public API; the `graphiti-sessions` command is a thin layer over it::

    session = read_transcript(path)                 # problems collected, not raised
    summary = extract_summary(session)              # offline, no LLM
    async with open_backend(GraphConfig()) as backend:
        result = await SessionGraphWriter(backend).ingest(summary)

Names are imported on first use, so that `import graphiti_session_tracking` (and the command
line, which answers queries without graphiti-core) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import AppConfig, GraphConfig, load_config
    from .graph.backends import Backend, BackendError, BackendLost, open_backend
    from .graph.queries import run_query
    from .graph.writer import SessionGraphWriter, WriteResult
    from .legacy import MigrationReport, migrate_legacy
    from .pipeline.reports import IngestReport
    from .pipeline.write import ingest_paths
    from .summary import EnhancedSessionSummary, extract_summary, summarize_session
    from .transcripts import Session, read_transcript

_HOMES = {
    ".config": ("AppConfig", "GraphConfig", "load_config"),
    ".graph.backends": ("Backend", "BackendError", "BackendLost", "open_backend"),
    ".graph.queries": ("run_query",),
    ".graph.writer": ("SessionGraphWriter", "WriteResult"),
    ".pipeline.reports": ("IngestReport",),
    ".pipeline.write": ("ingest_paths",),
    ".legacy": ("MigrationReport", "migrate_legacy"),
    ".summary": ("EnhancedSessionSummary", "extract_summary", "summarize_session"),
    ".transcripts": ("Session", "read_transcript"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "AppConfig",
    "Backend",
    "BackendError",
    "BackendLost",
    "EnhancedSessionSummary",
    "GraphConfig",
    "IngestReport",
    "MigrationReport",
    "Session",
    "SessionGraphWriter",
    "WriteResult",
    "extract_summary",
    "ingest_paths",
    "load_config",
    "migrate_legacy",
    "open_backend",
    "read_transcript",
    "run_query",
    "summarize_session",
]


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
