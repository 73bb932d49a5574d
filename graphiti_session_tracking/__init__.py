"""graphiti-sessions: coding-agent sessions as a Graphiti knowledge graph.

The public API; the `graphiti-sessions` command is a thin layer over it::

    session = read_transcript(path)                 # problems collected, not raised
    summary = extract_summary(session)              # offline, no LLM
    async with open_backend(GraphConfig()) as backend:
        result = await SessionGraphWriter(backend).ingest(summary)
"""

from .config import AppConfig, GraphConfig, load_config
from .graph.backends import Backend, BackendError, BackendLost, open_backend
from .graph.queries import run_query
from .graph.writer import SessionGraphWriter, WriteResult
from .ingest import IngestReport, ingest_paths
from .legacy import MigrationReport, migrate_legacy
from .summary import EnhancedSessionSummary, extract_summary, summarize_session
from .transcripts import Session, read_transcript

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
