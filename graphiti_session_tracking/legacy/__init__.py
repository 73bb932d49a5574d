"""Legacy migration: summaries of the older session-tracking module into the session graph.

`SessionSummarySchema` (the old model), `parse_markdown` (the old markdown, with its front
matter), `convert_record` (to an EnhancedSessionSummary, spec section 10.1) and `migrate_legacy`
(from JSON/JSONL/markdown files or the old graph episodes, through SessionGraphWriter).
"""

from .convert import convert_record, legacy_session_id, parse_duration_minutes, sanitize_group_id
from .markdown import parse_markdown, parse_token_count
from .migrate import MigrationReport, load_legacy_file, migrate_legacy, parse_json_records, read_graph_records
from .schema import LegacyFormatError, LegacyRecord, SessionSummarySchema

__all__ = [
    "LegacyFormatError",
    "LegacyRecord",
    "MigrationReport",
    "SessionSummarySchema",
    "convert_record",
    "legacy_session_id",
    "load_legacy_file",
    "migrate_legacy",
    "parse_duration_minutes",
    "parse_json_records",
    "parse_markdown",
    "parse_token_count",
    "read_graph_records",
    "sanitize_group_id",
]
