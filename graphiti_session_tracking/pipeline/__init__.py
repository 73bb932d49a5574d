"""Sources → summaries → graph: what a run does, owned in one place (the composition root builds
it from the config; `ingest`, `watch`, `migrate` and the MCP server are thin shells over it)."""

from .reports import IngestReport, WriteReport
from .sources import DEFAULT_TRANSCRIPTS_DIR, SourceError, discover_sources

__all__ = ["DEFAULT_TRANSCRIPTS_DIR", "IngestReport", "SourceError", "WriteReport", "discover_sources"]
